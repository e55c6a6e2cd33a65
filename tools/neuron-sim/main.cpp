// neuron-sim: the simulator's command line. Thin: parse, hand to a command, print.
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <systemc>  // declares sc_main extern "C"

#include "common/tool_main.h"
#include "neuron-sim/check_command.h"
#include "neuron-sim/info_command.h"
#include "neuron-sim/fault_command.h"
#include "module_advice.h"
#include "neuron-sim/module_tools.h"
#include "neuron-sim/nccom_test_command.h"
#include "neuron-sim/run_command.h"
#include "neuron-sim/serve_command.h"
#include "neuron-sim/sweep_command.h"
#include "neuron-sim/train_command.h"


int sc_main(int argc, char** argv) {
    // Started as `rmmod` or `modprobe` (the links in build/tools/sbin): the simulated host's own tools.
    if (const std::string tool = nsim::tools::module_tool_named_by(argv[0]); !tool.empty())
        return nsim::tools::run_module_tool(tool, argc, argv);

    CLI::App app{"Cycle-approximate simulator of AWS Neuron machines", "neuron-sim"};
    app.require_subcommand(1);
    nsim::tools::MachineSelection machine;
    machine.add_options(app);

    nsim::tools::InfoOptions info;
    CLI::App* info_cmd = app.add_subcommand("info", "Print the elaborated machine");
    info_cmd->add_flag("--json", info.json, "Print one JSON object");

    nsim::tools::RunOptions run;
    CLI::App* run_cmd = app.add_subcommand("run", "Execute a program on the simulated NeuronCores and report its timing");
    run_cmd->add_option("program", run.program, "Program file (assembled with neuron-as, or a model from neuron-build)")->required();
    CLI::Option* iterations = run_cmd->add_option("--iterations", run.iterations, "Execute the program this many times, each through the runtime (doorbell, completion); the report gives statistics over all of them")
        ->check(nsim::tools::in_range(1u, 1000000u));
    CLI::Option* functional = run_cmd->add_flag("--functional", run.functional, "Compute real values too (default: timing only)");
    CLI::Option* pairs = run_cmd->add_option("--pairs", run.pairs,
        "Classify the sentence pairs of this MRPC-format TSV (header, then label, #1 ID, #2 ID, #1 String, #2 String) "
        "with a neuron-build BERT and print accuracy and F1 against its labels (1 = paraphrase, 0 = not paraphrase, "
        "as in the TorchServe demo)")
        ->needs(functional)->excludes(iterations);
    run_cmd->add_option("--predictions", run.predictions,
        "With --pairs: write one line per pair: index (0-based, in file order), predicted label "
        "(1 = paraphrase, 0 = not paraphrase), logit_0, logit_1")
        ->needs(pairs);
    run_cmd->add_option("--vocab", run.vocab,
        "With --pairs: the WordPiece vocab.txt to tokenize with (default: the checkpoint's vocab.txt if neuron-build "
        "--weights found one, else the uncased BERT vocabulary of shared/data)")
        ->needs(pairs);
    run_cmd->add_option("--trace", run.trace_file,
                        "Write a Chrome trace (Perfetto opens it) of one execution to this file: the load, the host's "
                        "copies and runtime work, every instruction and semaphore wait, DMA and HBM bandwidth counters (FILE.gz: "
                        "gzip-compressed, as Perfetto opens it too)");
    run_cmd->add_option("--trace-iteration", run.trace_iteration, "With --trace: the execution to trace, 1 to --iterations (default: the last)")
        ->check(nsim::tools::in_range(1u, 1000000u));
    run_cmd->add_option("--trace-window", run.trace_window,
                        "With --trace: keep only what overlaps START:END, microseconds from the traced execution's start "
                        "(END may be left out); for big models");
    run_cmd->add_option("--profile", run.profile_file,
                        "Write the last execution's summary in neuron-profile's terms (total_time, engine active %, MFU/HFU, "
                        "DMA and HBM bytes, semaphore waits) to this file as JSON")
        ->excludes(pairs);
    run_cmd->add_option("--graph", run.graph,
                        "The graph to execute, of a program of several (a training program's 'first micro-step', 'micro-step', "
                        "'optimizer'; neuron-objdump lists them). Default: its first graph")
        ->excludes(pairs);
    run_cmd->add_flag("--json", run.json, "Print the report as one JSON object");
    run_cmd->add_flag("--verbose", run.verbose, "List every engine queue (each DMA queue too) instead of one line per core and engine kind");
    run_cmd->add_option("--input", run.inputs,
                        "NAME=FILE.npy (repeatable, with --functional): the values of the program's input or weight tensor NAME. "
                        "Shapes must match; fp32/int32/int8/uint8 tensors take float32/int32/int8/uint8 arrays, bf16 and fp8 "
                        "tensors take float32 (rounded to nearest even), fp16 takes float16 or float32. Once any is given, "
                        "every input and weight without data of its own must be given too");
    run_cmd->add_option("--output-dir", run.output_dir,
                        "With --functional: write every output tensor as DIR/NAME.npy (bf16, fp16 and fp8 widened to float32)");

    run_cmd->add_flag("--check", run.check,
                      "Run the race checker first (see the check command); when it finds anything, print it and do not run");

    nsim::tools::RunOptions profile;
    profile.profile = true;
    CLI::App* profile_cmd = app.add_subcommand("profile",
        "Execute a program once through the runtime and print its summary in neuron-profile's terms (summary-text: "
        "one 'name value' line per metric; --json for JSON)");
    profile_cmd->add_option("program", profile.program, "Program file (neuron-as or neuron-build)")->required();
    profile_cmd->add_flag("--json", profile.json, "Print the summary as one JSON object");
    profile_cmd->add_option("--trace", profile.trace_file, "Also write the execution's Chrome trace to this file");

    std::string check_path;
    CLI::App* check_cmd = app.add_subcommand("check",
        "Find races in a program: two engine queues touching the same SBUF/PSUM/memory bytes, one writing, that no "
        "semaphore chain orders; reads of bytes nothing wrote before; tensors placed over each other; waits that "
        "can never be satisfied. Exit 0 when clean, 1 when anything was found");
    check_cmd->add_option("program", check_path, "Program file (neuron-as or neuron-build)")->required();

    nsim::tools::ServeOptions serve;
    CLI::App* serve_cmd = app.add_subcommand("serve", "Simulate serving a neuron-build model under closed-loop load");
    serve_cmd->add_option("program", serve.program, "Model file (built with neuron-build)")->required()->check(CLI::ExistingFile);
    serve_cmd->add_option("--clients", serve.clients, "Closed-loop clients")->check(nsim::tools::in_range(1u, 100000u));
    serve_cmd->add_option("--requests", serve.requests, "Requests each client sends")->check(nsim::tools::in_range(1u, 1000000u));
    serve_cmd->add_option("--max-batch-delay", serve.max_batch_delay_ms, "Milliseconds a free copy waits for its batch to fill")
        ->check(nsim::tools::in_range(0.0, 1e6));
    serve_cmd->add_flag("--json", serve.json, "Print the report as one JSON object");

    nsim::library::CollectiveBenchmarkRequest nccom;
    CLI::App* nccom_cmd = app.add_subcommand("nccom-test",
        "Benchmark a collective over the instance's NeuronCores as nccom-test does: one row per buffer size (time, "
        "algorithm and bus bandwidth in GiB/s), then the average bus bandwidth");
    nccom_cmd->add_option("operation", nccom.operation, "all_reduce, all_gather or reduce_scatter")
        ->required()->check(CLI::IsMember({"all_reduce", "all_gather", "reduce_scatter"}));
    nccom_cmd->add_option("-r,--nworkers", nccom.ranks, "Ranks over all nodes: NeuronCores 0 .. r/N-1 of each node "
                          "(trn1.32xlarge runs 2, 8, 16 or 32 per node)")
        ->capture_default_str();
    nccom_cmd->add_option("-N,--nnodes", nccom.nodes, "Nodes: identical instances joined by EFA, the collective hierarchical "
                          "across them; under mpirun spread over the MPI ranks")
        ->capture_default_str();
    nccom_cmd->add_option("-b,--minbytes", nccom.min_size, "Smallest buffer, bytes (K, M, G: powers of 1024)")->capture_default_str();
    nccom_cmd->add_option("-e,--maxbytes", nccom.max_size, "Largest buffer, bytes (K, M, G: powers of 1024)")->capture_default_str();
    nccom_cmd->add_option("-f,--stepfactor", nccom.factor, "Each size is the previous one times this")->capture_default_str();
    nccom_cmd->add_option("-d,--datatype", nccom.dtype, "Element type: fp32, bf16, fp16, fp8e4m3, fp8e5m2, int32, int8, uint8")
        ->capture_default_str();
    nccom_cmd->add_option("-n,--iters", nccom.iterations, "Timed executions per size")->capture_default_str()
        ->check(nsim::tools::in_range(1u, 100000u));
    nccom_cmd->add_option("-w,--warmup_iters", nccom.warmup, "Untimed executions before them")->capture_default_str()
        ->check(nsim::tools::in_range(0u, 100000u));
    nsim::tools::TrainOptions train;
    CLI::App* train_cmd = app.add_subcommand("train", "Train with a neuron-build bert-train program: one execution per optimizer step, the BERT script's LOG line per step, then step time, throughput, MFU, engines and memory");
    train_cmd->add_option("program", train.program, "Training program (neuron-build bert-train)")->required()->check(CLI::ExistingFile);
    train_cmd->add_option("--steps", train.steps, "Optimizer steps")->check(nsim::tools::in_range(1u, 1000000u));
    train_cmd->add_flag("--functional", train.functional, "Train for real: compute values, read the loss (default: timing only)");
    train_cmd->add_option("--data", train.data, "With --functional: labelled sentence pairs, MRPC TSV (default: shared/data's MRPC dev set)");
    train_cmd->add_option("--vocab", train.vocab, "With --functional: the WordPiece vocab.txt to tokenize with (default as run --pairs)");
    train_cmd->add_option("--lr", train.lr, "Peak learning rate (linear schedule: warmup, then decay to 0 at the last step)")
        ->check(nsim::tools::in_range(0.0, 10.0));
    train_cmd->add_option("--warmup-steps", train.warmup_steps, "Steps of linear warmup from 0")->check(nsim::tools::in_range(0u, 1000000u));
    train_cmd->add_option("--weight-decay", train.weight_decay, "AdamW's decoupled weight decay")->check(nsim::tools::in_range(0.0, 1.0));
    train_cmd->add_option("--save", train.save, "With --functional: write the trained model to this directory (config.json, model.safetensors with Hugging Face names, vocab.txt) for neuron-build bert --weights");
    train_cmd->add_flag("--json", train.json, "Print the steps and the report as one JSON object (no LOG lines)");
    train_cmd->add_option("--nodes", train.nodes, "Instances to train on, joined by EFA (the program's neuron-build bert-train --nodes); under mpirun they are spread over the ranks");

    nsim::tools::SweepOptions sweep;
    CLI::App* sweep_cmd = app.add_subcommand("sweep",
        "Build and run every point of a grid (instance x model x batch x seq x dtype x cores, inference or training) "
        "timing-only: one CSV row per point (throughput, latency or step time, MFU, engines busy %, its error if it failed, "
        "the neuron-build and neuron-sim commands that reproduce it) and a PNG of throughput against batch (gnuplot). "
        "Under mpirun the points are spread over the ranks. Run again, it resumes: points already in the CSV are not rerun");
    sweep_cmd->add_option("sweep", sweep.sweep_file, "Sweep file (YAML; see README 'Sweeps')")->required();
    sweep_cmd->add_option("-o,--output", sweep.csv, "CSV to write (default: the sweep file's name with .csv, in the current directory)");
    sweep_cmd->add_option("--plot", sweep.plot, "PNG to draw (default: the CSV's name with .png; its gnuplot script beside it as .gp)");
    sweep_cmd->add_flag("--no-plot", sweep.no_plot, "Write the CSV only");

    std::string module = nsim::driver::kModuleName;
    CLI::App* modprobe_cmd = app.add_subcommand("modprobe", "Load the simulated neuron driver: probe and reset every device");
    modprobe_cmd->add_option("module", module, "Module name (the simulated host has one: neuron)")->capture_default_str();
    bool remove_module = false;
    nsim::tools::add_remove_flag(*modprobe_cmd, remove_module);
    CLI::App* rmmod_cmd = app.add_subcommand("rmmod", "Unload the simulated neuron driver (refused while a device is in use)");
    rmmod_cmd->add_option("module", module, "Module name (the simulated host has one: neuron)")->capture_default_str();
    CLI::App* dmesg_cmd = app.add_subcommand("dmesg", "Print the simulated host's kernel log (the driver's messages, boot-relative times)");
    nsim::tools::FaultOptions fault;
    CLI::App* fault_cmd = app.add_subcommand("fault", "Driver fault injection (debugfs neuron/ attributes)");
    fault_cmd->require_subcommand(1);
    fault_cmd->footer("The driver's switches live in its debugfs: rmmod removes them (they read 0 after it), so a switch "
                      "meant for modprobe is set after rmmod. firmware_hang is a hardware fault and survives a reload.");
    CLI::App* fault_list = fault_cmd->add_subcommand("list", "Show every switch, its value and what it does");
    CLI::App* fault_set = fault_cmd->add_subcommand("set", "Arm a switch: fail the next TIMES uses (-1: always, 0: off)");
    fault_set->add_option("name", fault.name, "Switch name (see fault list)")->required();
    fault_set->add_option("times", fault.times, "How many uses fail (default 1; -1 always; 0 off)");
    CLI::App* fault_clear = fault_cmd->add_subcommand("clear", "Disarm one switch, or all");
    fault_clear->add_option("name", fault.name, "Switch name (default: all)");

    return nsim::tools::run_tool(app, argc, argv, [&] {
        if (*info_cmd) return nsim::tools::run_info(machine, info);
        if (*modprobe_cmd) return nsim::tools::run_module_command(remove_module ? "rmmod" : "modprobe", machine, module);
        if (*rmmod_cmd) return nsim::tools::run_module_command("rmmod", machine, module);
        if (*dmesg_cmd) return nsim::tools::run_dmesg(machine.or_existing_host());
        if (*fault_cmd) {
            fault.action = *fault_list ? "list" : *fault_set ? "set" : "clear";
            return nsim::tools::run_fault(machine.or_existing_host(), fault);
        }
        if (*run_cmd) return nsim::tools::run_program(machine, run);
        if (*profile_cmd) return nsim::tools::run_program(machine, profile);
        if (*check_cmd) return nsim::tools::check_program(check_path);
        if (*serve_cmd) return nsim::tools::run_serve(machine, serve);
        if (*nccom_cmd) return nsim::tools::run_nccom_test(machine, nccom);
        if (*train_cmd) return nsim::tools::run_train(machine, train);
        if (*sweep_cmd) return nsim::tools::run_sweep(machine, sweep);
        return 0;
    }, {{nsim::tools::kHomeVariable, nsim::tools::kHomeHelp},
        {nsim::tools::kInstanceVariable, nsim::tools::kInstanceHelp},
        {"NEURON_RT_VISIBLE_CORES", "run/serve: the NeuronCores the runtime claims, e.g. 0-3 or 1,3 (default: every NeuronCore of the host)"},
        {"NEURON_RT_NUM_CORES", "run/serve: how many NeuronCores the runtime claims"},
        {"NEURON_RT_EXEC_TIMEOUT", "run/serve: seconds of simulated time an execution may take (default 30)"},
        {"NEURON_PROCESS_TAG", "run/serve: this process's name in neuron-top and neuron-monitor (default: its pid)"}});
}
