#!/usr/bin/env bash
# Builds with AddressSanitizer + UndefinedBehaviorSanitizer (NSIM_SANITIZE=ON) into build-asan/ (or
# $NSIM_SANITIZE_BUILD_DIR) and runs the tests there. Any sanitizer report fails the test it comes from.
#   tools/scripts/sanitize.sh                 every target, every test (a second full build: long)
#   tools/scripts/sanitize.sh --ci            the subset CI runs: parsing, validator, driver, host state
#                                             and hostile-input tests, and only the targets they need
# Other arguments go to cmake's configure step.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${NSIM_SANITIZE_BUILD_DIR:-$root/build-asan}

# The CI subset: what reads user files and host state, and what validates programs.
ci_targets=(isa_tests isa_cli_tests config_test driver_test runtime_test hostile_inputs_test hostile_values_test)
ci_tests='^(Encoding|ContainerReader|Validator|Assembler|Examples|FormatDoc|NeuronAsCli|NeuronObjdumpCli|Config|AllShipped/'
ci_tests+='|IdList|Probe|Shipped/ProbeEveryInstance|Mailbox|Reset|FirmwareReset|Memory|Dma|Module|HostState'
ci_tests+='|Kinds/DamagedRecord|DamagedRecord|Kinds/DamagedMachine|DamagedMachine|FaultSwitch|HostHome|MultiProcess'
ci_tests+='|HostileInputs|HostileValues)'

targets=()
test_filter=()
if [[ ${1:-} == --ci ]]; then
  shift
  targets=("${ci_targets[@]}")
  test_filter=(-R "$ci_tests")
fi

cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DNSIM_SANITIZE=ON "$@" >/dev/null
if ((${#targets[@]})); then
  cmake --build "$build" --parallel "$(nproc)" --target "${targets[@]}"
else
  cmake --build "$build" --parallel "$(nproc)"
fi

export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
# UBSan stops at its first report (instead of printing and going on), so the test fails. Leak
# checking is off: SystemC keeps its kernel's objects until exit by design.
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
export ASAN_OPTIONS=detect_leaks=0:strict_string_checks=1
NEURON_SIM_HOME=$(mktemp -d)
export NEURON_SIM_HOME
trap 'rm -rf "$NEURON_SIM_HOME"' EXIT
ctest --test-dir "$build" --output-on-failure --parallel "$(nproc)" "${test_filter[@]}" -E '^fuzz_smoke_'
