// neuron-build: builds programs (bert.bin) for the simulated NeuronCores. Thin: parse, build, write.
#include <limits>

#include <CLI/CLI.hpp>

#include "common/tool_main.h"
#include "neuron-build/bert_command.h"
#include "neuron-build/bert_train_command.h"

int main(int argc, char** argv) {
    CLI::App app{"Builds NeuronCore programs for neuron-sim", "neuron-build"};
    app.require_subcommand(1);
    nsim::tools::BertBuildOptions bert;
    CLI::App* cmd = app.add_subcommand("bert", "BERT for sequence classification, hand-scheduled for the instance's NeuronCores");
    cmd->add_option("--model", bert.model, "bert-base, bert-large or a Hugging Face config.json");
    cmd->add_option("--seq", bert.seq, "Sequence length")->check(nsim::tools::in_range(1u, 4096u));
    cmd->add_option("--batch", bert.batch, "Sequences per model copy per execution")->check(nsim::tools::in_range(1u, 65536u));
    cmd->add_option("--dtype", bert.dtype, "fp32, bf16, fp16, mixed (fp16 matmuls and attention, fp32 elsewhere) or mixed-bf16 (the same in bf16: --auto-cast matmult)")
        ->check(CLI::IsMember(nsim::tools::kBertDtypes));
    cmd->add_option("--cores", bert.cores, "NeuronCores the program uses")->check(nsim::tools::in_range(1u, 1024u));
    cmd->add_option("--parallel", bert.parallel, "data: a model copy per core; pipeline: layers split across the cores")
        ->check(CLI::IsMember({"data", "pipeline"}));
    cmd->add_option("--weights", bert.weights, "Checkpoint directory (config.json + model.safetensors; its vocab.txt, if any, is what run --pairs tokenizes with); default: seeded random weights");
    cmd->add_option("--seed", bert.seed, "Seed of the random weights")
        ->check(nsim::tools::in_range<uint64_t>(0, std::numeric_limits<uint64_t>::max()));
    cmd->add_option("--embedding", bert.embedding, "host: inputs are embedding-layer outputs; device: token ids")
        ->check(CLI::IsMember({"host", "device"}));
    cmd->add_flag("--timing-only", bert.timing_only, "Leave the weights out (a program for timing runs only)");
    cmd->add_option("--instance,-i", bert.instance, "Instance type the program is for")
        ->envname("NEURON_SIM_INSTANCE")
        ->default_val("inf1.2xlarge");
    cmd->add_option("--config", bert.config_files, "Extra YAML file with your own chips or instances")
        ->check(CLI::ExistingFile);
    cmd->add_option("-o,--output", bert.output, "Program file to write")->required();

    nsim::tools::BertTrainBuildOptions train;
    CLI::App* train_cmd = app.add_subcommand("bert-train", "A BERT training program: one optimizer step (micro-steps of forward, backward and gradient accumulation, clipping, AdamW) per execution, for neuron-sim train");
    train_cmd->add_option("--task", train.task, "classify (fine-tuning for sequence classification) or pretrain")
        ->check(CLI::IsMember(nsim::tools::kBertTrainTasks));
    train_cmd->add_option("--model", train.model, "bert-base, bert-large or a Hugging Face config.json");
    train_cmd->add_option("--seq", train.seq, "Sequence length")->check(nsim::tools::in_range(3u, 4096u));
    train_cmd->add_option("--max-predictions", train.max_predictions,
                          "Masked-LM predictions per sequence for --task pretrain (default: seq * 5/32, the recipe's 20 at seq 128 and 80 at 512)")
        ->check(nsim::tools::in_range(1u, 4096u));
    train_cmd->add_option("--micro-batch", train.micro_batch, "Sequences per micro-step")->check(nsim::tools::in_range(1u, 65536u));
    train_cmd->add_option("--sequences-per-pass", train.sequences_per_pass,
                          "Run each micro-batch in passes of this many sequences, its activations spilled to device memory (default: the whole micro-batch when SBUF holds it, else the largest pass that fits)")
        ->check(nsim::tools::in_range(1u, 65536u));
    train_cmd->add_option("--tokens-per-chunk", train.tokens_per_chunk,
                          "With --sequences-per-pass: run each pass's feed-forward blocks over this many tokens at a time (a multiple of 128), the attention's and the FFN's activations stored as made (default: the pass's tokens at once; the builder chunks by 128 when nothing else fits)")
        ->check(nsim::tools::in_range(1u, 65536u));
    train_cmd->add_option("--grad-accum", train.grad_accum, "Micro-steps per optimizer step (gradient accumulation)")->check(nsim::tools::in_range(1u, 4096u));
    train_cmd->add_option("--cores", train.cores, "NeuronCores (data parallel)")->check(nsim::tools::in_range(1u, 1024u));
    train_cmd->add_option("--nodes", train.nodes, "Instances joined by EFA (data parallel across them, run with neuron-sim train --nodes): --grad-accum is divided among them to keep the global batch, as the pretraining tutorial does")
        ->check(nsim::tools::in_range(1u, 1024u));
    train_cmd->add_option("--dtype", train.dtype, "bf16 or fp32 (weights, activations and matmuls)")->check(CLI::IsMember(nsim::tools::kBertTrainDtypes));
    train_cmd->add_flag("--stochastic-rounding", train.stochastic_rounding, "Round every fp32 -> bf16 write stochastically (NEURON_RT_STOCHASTIC_ROUNDING_EN=1)");
    train_cmd->add_flag("--disable-dropout", train.disable_dropout, "Train without dropout (default: the model config's hidden_dropout_prob and attention_probs_dropout_prob, 0.1 for bert-base/large, its generator seeded with --seed)");
    train_cmd->add_option("--rounding-seed", train.rounding_seed, "Seed of the stochastic rounding (NEURON_RT_STOCHASTIC_ROUNDING_SEED)");
    train_cmd->add_option("--optimizer", train.optimizer, "adamw (fp32 m and v, AdamW_FP32OptimParams) or adamw-bf16 (m and v in the weights' dtype, SDK 2.3's all-BF16)")
        ->check(CLI::IsMember({"adamw", "adamw-bf16"}));
    train_cmd->add_option("--max-grad-norm", train.max_grad_norm, "Clip the gradient's global norm to this (0: no clipping)")->check(nsim::tools::in_range(0.0, 1e9));
    train_cmd->add_option("--weights", train.weights, "Checkpoint directory to start from (config.json + model.safetensors); default: seeded random weights");
    train_cmd->add_option("--seed", train.seed, "Seed of the random weights")
        ->check(nsim::tools::in_range<uint64_t>(0, std::numeric_limits<uint64_t>::max()));
    train_cmd->add_flag("--timing-only", train.timing_only, "Leave the weights and optimizer states out (a program for timing runs only: no weights made, a small file)");
    train_cmd->add_option("--instance,-i", train.instance, "Instance type the program is for")
        ->envname("NEURON_SIM_INSTANCE")
        ->default_val("trn1.2xlarge");
    train_cmd->add_option("--config", train.config_files, "Extra YAML file with your own chips or instances")->check(CLI::ExistingFile);
    train_cmd->add_option("-o,--output", train.output, "Program file to write")->required();
    return nsim::tools::run_tool(app, argc, argv, [&] {
        if (*train_cmd) return nsim::tools::build_bert_train(train);
        return nsim::tools::build_bert(bert);
    });
}
