#!/usr/bin/env bash
# The fidelity report: builds and runs every row of ../shared/reference/calibration.md the way the
# real measurement was taken, and prints published, simulated and error side by side. The README's
# estimates table is this script's output.
#
#   tools/scripts/fidelity_report.sh [--markdown]
#
# Rows (calibration.md):
#   section 2  trn1.2xlarge, whole model on the device (`--embedding device`), one copy per NeuronCore
#              running at once (`--cores 2 --parallel data`), seq 128, matmuls bf16 and the rest fp32
#              (`--dtype mixed-bf16`, the benchmark's `--auto-cast matmult`): `run --json` end-to-end p50,
#              which is one call of one copy - inputs over PCIe, the runtime's per-call overhead, the
#              engines, outputs over PCIe.
#   section 3  inf2.xlarge, batch 1, one NeuronCore, device embedding: the ratios of end-to-end p50
#              from seq 128 to 256 and 256 to 512.
#   section 4  the inf1.2xlarge seed: BERT-large, 4 copies x batch 4, seq 128, host embedding, fp16/fp32
#              (`--dtype mixed`), `serve --clients 48 --requests 128`, inferences/s.
# Every row is built `--timing-only` (timing needs no weight values). Uses the build in
# $NSIM_BUILD_DIR (default build/) and a private $NEURON_SIM_HOME.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${NSIM_BUILD_DIR:-$root/build}
markdown=0
[[ ${1:-} == --markdown ]] && markdown=1
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export NEURON_SIM_HOME=$work/home

nbuild=$build/tools/neuron-build
nsim=$build/tools/neuron-sim

# build_model NAME INSTANCE ARGS... -> $work/NAME.bin
build_model() {
    local name=$1 instance=$2
    shift 2
    "$nbuild" bert "$@" --timing-only --instance "$instance" -o "$work/$name.bin" >/dev/null
}

# end_to_end_p50 NAME INSTANCE -> milliseconds (or the one-line error, prefixed "error: ")
end_to_end_p50() {
    local out
    if ! out=$("$nsim" --instance "$2" run "$work/$1.bin" --json 2>&1); then
        echo "error: $(tail -1 <<<"$out")"
        return
    fi
    jq -r '.latency_ms.p50 * 1000 | round / 1000' <<<"$out"
}

rows=()
# add_row LABEL PUBLISHED SIMULATED UNIT
add_row() {
    local error="-"
    if [[ $3 != error:* ]]; then error=$(awk -v p="$2" -v s="$3" 'BEGIN { printf "%+.1f%%", 100 * (s - p) / p }'); fi
    rows+=("$1|$2|$3|$4|$error")
}

# calibration_row MODEL BATCH PUBLISHED_P50_MS
calibration_row() {
    local name="cal-$1-b$2" value
    if ! value=$(build_model "$name" trn1.2xlarge --model "$1" --seq 128 --batch "$2" --cores 2 --parallel data \
                     --dtype mixed-bf16 --embedding device 2>&1); then
        value="error: $(tail -1 <<<"$value")"
    else
        value=$(end_to_end_p50 "$name" trn1.2xlarge)
    fi
    add_row "trn1.2xlarge $1 batch $2 seq 128, 2 copies, p50" "$3" "$value" ms
}

calibration_row bert-base 1 0.943
calibration_row bert-large 1 2.669
calibration_row bert-base 16 9.345

# Sequence-length ratios on inf2.xlarge (one NeuronCore, batch 1).
seq_ratio_rows() {
    local model=$1 r1=$2 r2=$3 seq value
    declare -A p50
    for seq in 128 256 512; do
        if ! value=$(build_model "seq-$model-$seq" inf2.xlarge --model "$model" --seq "$seq" --batch 1 --cores 1 \
                         --dtype mixed-bf16 --embedding device 2>&1); then
            p50[$seq]="error: $(tail -1 <<<"$value")"
        else
            p50[$seq]=$(end_to_end_p50 "seq-$model-$seq" inf2.xlarge)
        fi
    done
    ratio() {
        if [[ $1 == error:* ]]; then echo "$1"; elif [[ $2 == error:* ]]; then echo "$2"
        else awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b / a }'; fi
    }
    add_row "inf2.xlarge $model batch 1, seq 128 -> 256 (p50 ${p50[128]} -> ${p50[256]} ms)" "$r1" \
        "$(ratio "${p50[128]}" "${p50[256]}")" x
    add_row "inf2.xlarge $model batch 1, seq 256 -> 512 (p50 ${p50[256]} -> ${p50[512]} ms)" "$r2" \
        "$(ratio "${p50[256]}" "${p50[512]}")" x
}
seq_ratio_rows bert-base 1.86 2.40
seq_ratio_rows bert-large 1.99 2.28

# Seed 001: serving on inf1.2xlarge.
seed_value=$(build_model seed001 inf1.2xlarge --model bert-large --seq 128 --batch 4 --cores 4 --parallel data \
                 --dtype mixed --embedding host 2>&1) && seed_value=$(
    "$nsim" --instance inf1.2xlarge serve "$work/seed001.bin" --clients 48 --requests 128 --json 2>&1 |
        jq -r '.throughput_per_s | . * 10 | round / 10') || seed_value="error: $(tail -1 <<<"$seed_value")"
add_row "inf1.2xlarge bert-large 4 copies x batch 4, seq 128, 48 clients x 128 requests" 200 "$seed_value" "inferences/s"

if ((markdown)); then
    echo "| row | published | simulated | unit | error |"
    echo "|---|---|---|---|---|"
    for r in "${rows[@]}"; do echo "| ${r//|/ | } |"; done
else
    printf '%-100s %10s %12s %-13s %8s\n' row published simulated unit error
    for r in "${rows[@]}"; do
        IFS='|' read -r label published simulated unit error <<<"$r"
        printf '%-100s %10s %12s %-13s %8s\n' "$label" "$published" "$simulated" "$unit" "$error"
    done
fi
