#!/usr/bin/env bash
# A user's two terminals, in tmux: a long `neuron-sim run` of a neuron-build model (WORKLOAD run) or
# a long `neuron-sim train` of a neuron-build bert-train program (WORKLOAD train) in one pane,
# interactive `neuron-top` in another. Passes when neuron-top shows the run's NeuronCore busy (and
# only that one), and at that moment neuron-ls (table and --json-output) lists the run's PID; then
# the run is stopped and neuron-ls no longer lists it.
# Usage: live_run_in_tmux.sh run|train NEURON_BUILD NEURON_SIM NEURON_TOP NEURON_LS
# Needs tmux and ps (procps) besides bash, coreutils and grep; tools/scripts/setup.sh installs them.
# Every wait ends as soon as its condition holds; its budget is generous for a loaded 2-core machine
# and is multiplied by NSIM_TEST_WAIT_SCALE (a whole number, default 1) on slower ones.
set -euo pipefail

workload=$1 build=$2 sim=$3 top=$4 ls=$5
# One device, two NeuronCores: the run takes NC1, NC0 stays idle.
case $workload in
    run) readonly instance=inf2.xlarge ;;
    train) readonly instance=trn1.2xlarge ;;
    *) echo "FAIL: workload '$workload' is neither run nor train" >&2; exit 1 ;;
esac
readonly scale=${NSIM_TEST_WAIT_SCALE:-1}
[[ $scale =~ ^[1-9][0-9]*$ ]] || { echo "FAIL: NSIM_TEST_WAIT_SCALE='$scale' is not a whole number >= 1" >&2; exit 1; }
readonly poll_s=0.2 polls=$((300 * scale))  # 60 s per wait at scale 1

fail() {
    echo "FAIL: $*" >&2
    exit 1
}
for tool in tmux ps; do
    command -v $tool >/dev/null || fail "$tool is not installed (tools/scripts/setup.sh installs it)"
done

work=$(mktemp -d "${TMPDIR:-/tmp}/nsim-live.XXXXXX")
export NEURON_SIM_HOME=$work/home
# A private server (its socket goes with $work), whatever else runs tmux on this machine.
tmux_=(tmux -S "$work/tmux.socket" -f "$work/tmux.conf")
run_pid=
# Ended, or a zombie: tmux may take its time to reap a pane's process.
ended() {
    case $(ps -o stat= -p "$1" 2>/dev/null) in
        '' | Z*) return 0 ;;
        *) return 1 ;;
    esac
}
cleanup() {
    [[ -n $run_pid ]] && kill "$run_pid" 2>/dev/null || true
    "${tmux_[@]}" kill-server 2>/dev/null || true
    # The run writes into $work until it is gone.
    for _ in $(seq $polls); do
        [[ -z $run_pid ]] || ended "$run_pid" && break
        sleep $poll_s
    done
    rm -rf "$work"
}
trap cleanup EXIT

# A small BERT (2 layers, hidden 128) on one core: quick to build, milliseconds per execution (or
# per optimizer step), run for far longer than the test lasts.
cat >"$work/config.json" <<'EOF'
{"vocab_size": 120, "hidden_size": 128, "num_hidden_layers": 2, "num_attention_heads": 2,
 "intermediate_size": 256, "max_position_embeddings": 64}
EOF
if [[ $workload == run ]]; then
    "$build" bert --model "$work/config.json" --seq 16 --batch 1 --cores 1 --dtype fp32 --instance $instance \
        -o "$work/model.bin" >/dev/null
    command=(run "$work/model.bin" --iterations 1000000)
else
    "$build" bert-train --task classify --model "$work/config.json" --seq 16 --micro-batch 2 --dtype fp32 \
        --instance $instance -o "$work/model.bin" >/dev/null
    command=(train "$work/model.bin" --steps 1000000)
fi

# Fixed size, no user config, panes stay visible after their command ends (to show why).
cat >"$work/tmux.conf" <<'EOF'
set -g default-terminal screen
set -g remain-on-exit on
set -g default-size 200x60
EOF
"${tmux_[@]}" new-session -d -s live -x 200 -y 60 \
    "exec env NEURON_RT_VISIBLE_CORES=1 '$sim' --instance $instance $(printf '%q ' "${command[@]}")"
"${tmux_[@]}" split-window -v -l 48 -t live:0 "exec '$top' --instance $instance"
run_pane=live:0.0 top_pane=live:0.1
run_pid=$("${tmux_[@]}" display-message -p -t $run_pane '#{pane_pid}')

pane_dead() { [[ $("${tmux_[@]}" display-message -p -t "$1" '#{pane_dead}') == 1 ]]; }
show_panes() {
    echo "--- neuron-sim $workload pane:" >&2
    "${tmux_[@]}" capture-pane -p -t $run_pane >&2
    echo "--- neuron-top pane:" >&2
    "${tmux_[@]}" capture-pane -p -t $top_pane >&2
}
# Percentages of ND0's NeuronCores on neuron-top's screen, e.g. "0.00 40.28".
nd0_utilization() {
    "${tmux_[@]}" capture-pane -p -t $top_pane | grep '^ND0 ' | grep -oE '\[ *[0-9.]+%\]' | tr -d '[]% ' | tr '\n' ' '
}
# Waits until `condition` holds, at most $polls times.
wait_for() {
    local what=$1 condition=$2
    for _ in $(seq $polls); do
        pane_dead $run_pane && { show_panes; fail "neuron-sim $workload ended before $what"; }
        pane_dead $top_pane && { show_panes; fail "neuron-top ended before $what"; }
        eval "$condition" && return 0
        sleep $poll_s
    done
    show_panes
    fail "neuron-top never showed $what ($polls polls, ${poll_s} s apart)"
}
run_core_busy() {
    read -r nc0 nc1 <<<"$(nd0_utilization)"
    [[ $nc0 == 0.00 && -n $nc1 && $nc1 != 0.00 ]]
}

wait_for "NC1 busy and NC0 idle" run_core_busy
# At that moment neuron-ls lists the run on the device (--wide: the view with processes since SDK 2.25).
listing=$("$ls" --instance $instance --wide)
grep -qE "^\| 0 .*\| $run_pid +\| " <<<"$listing" || { echo "$listing" >&2; fail "neuron-ls --wide does not list PID $run_pid on device 0"; }
json=$("$ls" --instance $instance --json-output)
grep -qE "\"pid\": $run_pid\b" <<<"$json" || { echo "$json" >&2; fail "neuron-ls --json-output does not list PID $run_pid"; }

# neuron-top's key 2 selects the run's own tab; its core is still the busy one.
grep -qE "\[2\]:$run_pid\b" <<<"$("${tmux_[@]}" capture-pane -p -t $top_pane)" || { show_panes; fail "no neuron-top tab for PID $run_pid"; }
"${tmux_[@]}" send-keys -t $top_pane 2
run_tab_selected() { "${tmux_[@]}" capture-pane -p -t $top_pane | grep -qE ">\[2\]:$run_pid<" && run_core_busy; }
wait_for "PID $run_pid's tab selected with NC1 busy" run_tab_selected

# A run that is stopped leaves no claim behind.
kill "$run_pid"
for _ in $(seq $polls); do
    ended "$run_pid" && break
    sleep $poll_s
done
ended "$run_pid" || fail "neuron-sim $workload (PID $run_pid) did not end on SIGTERM"
listing=$("$ls" --instance $instance --wide)
grep -qE "\| $run_pid +\| " <<<"$listing" && { echo "$listing" >&2; fail "neuron-ls --wide still lists PID $run_pid after it ended"; }
echo "PASS: neuron-top showed neuron-sim $workload (PID $run_pid) busy on NC1 ($nc1%), neuron-ls listed it"
