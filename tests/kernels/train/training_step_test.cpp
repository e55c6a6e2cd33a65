// Optimizer steps of a small BertForSequenceClassification (2 layers, hidden 128, 2 heads, FFN 512,
// micro-batches of two sequences of 16 tokens, one padded; a 300-word vocabulary) as one program on a
// simulated trn1 NeuronCore (train::training_step: two micro-steps of forward, loss, backward and
// gradient accumulation, then clipping and AdamW writing the parameters back), executed twice in a
// row and compared after each execution with reference::bert_classification_gradients,
// reference::clip_grad_norm and reference::adamw_step: the losses, each gradient sum, the norm, each
// parameter's update and AdamW's m. The second step's reference starts from the parameters and
// states the device holds after the first, so it checks that the program reads what it wrote (the
// parameters, W^T, the bias and layernorm copies it derives from them).
// Tolerances relative to the largest reference value of each tensor: fp32 1e-4 (the bound).
// bf16: 5e-2 - every activation the forward keeps and every gradient between kernels is rounded to
// 8 significant bits (2^-9 relative each), through two layers and back, and the bf16 parameters
// themselves only hold an update to within their own ulp; measured values are printed.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "bert/random_weights.h"
#include "kernel_harness.h"
#include "common/temp_directory.h"
#include "reference/adamw.h"
#include "reference/bert_backward.h"
#include "reference/dropout_mask.h"
#include "reference/gradient_clipping.h"
#include "train/dropout.h"
#include "train/training_program.h"
#include "train/training_step.h"
#include "training_test_states.h"

namespace nsim::kernels {
namespace {

using device::Precision;
using testing::DeviceRun;
using testing::KernelHarness;
using testing::adam_states;
using testing::round_all;
using testing::weight_slot_columns;

using testing::kAccum;
using testing::kBatch;
using testing::kInstance;
using testing::kSeq;

BertConfig small_config() {
    BertConfig c;
    c.vocab_size = 300;
    c.hidden_size = 128;
    c.num_hidden_layers = 2;
    c.num_attention_heads = 2;
    c.intermediate_size = 512;
    c.max_position_embeddings = 32;
    c.initializer_range = 0.08;
    c.num_labels = 3;
    return c;
}

struct MicroBatch {
    TokenBatch tokens;
    std::vector<int32_t> labels;
};

// Micro-batch `k`: different words, lengths and labels each; one word twice in the first (its
// gradient rows add up). Lengths scale with `seq` (from seq 16's).
MicroBatch micro_batch(uint32_t k, uint32_t seq = kSeq) {
    MicroBatch b{TokenBatch{kBatch, seq, {}, {}, {}}, k % 2 == 0 ? std::vector<int32_t>{2, 0} : std::vector<int32_t>{1, 1}};
    const uint32_t length = (13 - 3 * (k % 2)) * seq / kSeq;
    for (uint32_t i = 0; i < kBatch * seq; ++i) {
        const uint32_t s = i % seq;
        b.tokens.input_ids.push_back(int32_t((i * 37 + 11 + k * 101) % 300));
        b.tokens.token_type_ids.push_back(s < seq / 2 ? 0 : 1);
        b.tokens.attention_mask.push_back(i >= seq && s >= length ? 0 : 1);
    }
    if (k == 0) b.tokens.input_ids[3] = b.tokens.input_ids[seq + 5] = 7;
    return b;
}

// One step on `batches` (one per micro-step); the micro-steps' losses.
std::vector<float> run_step(DeviceRun& run, const std::vector<MicroBatch>& batches, const std::vector<float>& scalars) {
    return testing::run_training_step(run, uint32_t(batches.size()), [&](uint32_t k) {
        run.write_ints(train::kInputIdsInput, batches[k].tokens.input_ids);
        run.write_ints(train::kTokenTypeIdsInput, batches[k].tokens.token_type_ids);
        run.write_ints(train::kAttentionMaskInput, batches[k].tokens.attention_mask);
        run.write_ints(train::kLabelsInput, batches[k].labels);
    }, scalars);
}

// The model and AdamW states as the device holds them between steps.
struct TrainingState {
    BertWeights weights, m, v;
};

// Every test's starting point: the model's random weights (seed 17) and random AdamW states of
// dtype `states` (an earlier step's m and v).
TrainingState initial_state(const BertConfig& config, isa::DType states) {
    return {random_bert_weights(config, 17, true), adam_states(config, false, states), adam_states(config, true, states)};
}

TrainingState read_state(const DeviceRun& run, const TrainingState& like) {
    TrainingState s = like;
    const auto ws = bert_tensor_slots(s.weights, true), ms = bert_tensor_slots(s.m, true), vs = bert_tensor_slots(s.v, true);
    for (size_t i = 0; i < ws.size(); ++i) {
        ws[i].tensor->values = run.read(ws[i].name);
        ms[i].tensor->values = run.read(train::m_tensor(ws[i].name));
        vs[i].tensor->values = run.read(train::v_tensor(ws[i].name));
    }
    return s;
}

// One reference step from `before`: the losses, the gradient sums, the norm, and the state after.
struct ReferenceStep {
    std::vector<double> losses;
    BertWeights gradient_sums;
    double norm = 0;
    TrainingState after;
};

ReferenceStep reference_step(const TrainingState& before, const std::vector<MicroBatch>& batches, double max_norm,
                             const reference::AdamWHyper& adam, uint32_t t) {
    ReferenceStep r;
    for (const MicroBatch& b : batches) {
        reference::BertGradients g = reference::bert_classification_gradients(before.weights, b.tokens, b.labels);
        r.losses.push_back(g.loss);
        if (r.losses.size() == 1) {
            r.gradient_sums = std::move(g.weights);
            continue;
        }
        const auto sums = bert_tensor_slots(r.gradient_sums, true), add = bert_tensor_slots(g.weights, true);
        for (size_t i = 0; i < sums.size(); ++i)
            for (size_t j = 0; j < sums[i].tensor->values.size(); ++j) sums[i].tensor->values[j] += add[i].tensor->values[j];
    }
    BertWeights average = r.gradient_sums;
    std::vector<Tensor*> grads;
    for (const BertTensorSlot& slot : bert_tensor_slots(average, true)) {
        for (float& x : slot.tensor->values) x /= float(batches.size());
        grads.push_back(slot.tensor);
    }
    r.norm = reference::clip_grad_norm(grads, max_norm);
    r.after = before;
    const auto ps = bert_tensor_slots(r.after.weights, true), ms = bert_tensor_slots(r.after.m, true);
    const auto vs = bert_tensor_slots(r.after.v, true);
    for (size_t i = 0; i < ps.size(); ++i) reference::adamw_step(*ps[i].tensor, *ms[i].tensor, *vs[i].tensor, *grads[i], adam, t);
    return r;
}

// Each gradient sum the device holds against the reference's; the worst relative error.
double compare_gradient_sums(const DeviceRun& run, const BertWeights& want, double tolerance) {
    double worst = 0;
    const auto grads = bert_tensor_slots(const_cast<BertWeights&>(want), true);
    for (size_t i = 0; i < grads.size(); ++i) {
        const std::string& name = grads[i].name;
        const std::vector<float> got_grad = run.read(train::gradient_tensor(name));
        // The key bias's gradient is zero but for rounding (softmax ignores a per-row shift): checked
        // against the query bias's rather than relative to itself.
        if (name.find("key.bias") == std::string::npos) {
            const double e = testing::relative_error(got_grad, grads[i].tensor->values);
            worst = std::max(worst, e);
            EXPECT_LT(e, tolerance) << "gradient of " << name;
        } else {
            double dbk = 0, dbq = 0;
            for (float x : got_grad) dbk = std::max(dbk, double(std::fabs(x)));
            for (float x : grads[i - 2].tensor->values) dbq = std::max(dbq, double(std::fabs(x)));
            EXPECT_LT(dbk, tolerance * dbq) << name;
        }
    }
    return worst;
}

struct StepErrors {
    double gradient = 0, update = 0;
};

// Device against reference after one step. fp32: each update relative to the largest of it, give or
// take the roundings of the new parameter (p decay and p decay - update on the device, the
// reference's float: 1.5 ulp of p at most, 2 allowed - an fp32 p holds an update ~1e-3 of it only to
// ~1e-4 of the update); bf16: the parameter itself (its ulp is near the size of the update).
StepErrors compare_step(const DeviceRun& run, const std::vector<float>& losses, const TrainingState& before,
                        const ReferenceStep& want, bool fp32, double tolerance) {
    StepErrors worst;
    for (size_t k = 0; k < want.losses.size(); ++k)
        EXPECT_LT(std::fabs(losses[k] - want.losses[k]), tolerance * std::fabs(want.losses[k])) << "loss " << k;
    const double norm = run.read(train::kGradNormOutput)[0];
    EXPECT_LT(std::fabs(norm - want.norm), tolerance * want.norm) << "gradient norm " << norm << " vs " << want.norm;
    worst.gradient = compare_gradient_sums(run, want.gradient_sums, tolerance);
    const auto grads = bert_tensor_slots(const_cast<BertWeights&>(want.gradient_sums), true);
    const auto old = bert_tensor_slots(const_cast<BertWeights&>(before.weights), true);
    const auto ps = bert_tensor_slots(const_cast<BertWeights&>(want.after.weights), true);
    const auto ms = bert_tensor_slots(const_cast<BertWeights&>(want.after.m), true);
    for (size_t i = 0; i < grads.size(); ++i) {
        const std::string& name = grads[i].name;
        const std::vector<float> got_p = run.read(name);
        double e = 0;
        if (fp32) {
            double diff = 0, update = 0, largest = 0;
            for (size_t j = 0; j < got_p.size(); ++j) {
                diff = std::max(diff, std::fabs(double(got_p[j]) - ps[i].tensor->values[j]));
                update = std::max(update, std::fabs(double(ps[i].tensor->values[j]) - old[i].tensor->values[j]));
                largest = std::max(largest, std::fabs(double(old[i].tensor->values[j])));
            }
            e = diff / update;
            EXPECT_LE(diff, tolerance * update + std::ldexp(largest, -22)) << "AdamW update of " << name;
        } else {
            e = testing::relative_error(got_p, ps[i].tensor->values);
            EXPECT_LT(e, tolerance) << "AdamW update of " << name;
        }
        worst.update = std::max(worst.update, e);
        EXPECT_LT(testing::relative_error(run.read(train::m_tensor(name)), ms[i].tensor->values), tolerance)
            << "AdamW m of " << name;
    }
    return worst;
}

struct StepCase {
    Precision precision;
    isa::DType states;
    const char* name;
    bool small_chunks = false;  // tables and optimizer in chunks of one row tile (exact either way)
    bool spill = false;         // activations through device memory, the micro-batch one sequence a pass
};
void PrintTo(const StepCase& c, std::ostream* os) { *os << c.name; }

class TrainingStep : public ::testing::TestWithParam<StepCase> {};

TEST_P(TrainingStep, TwoStepsOfAccumulatedClippedAdamWMatchTheReference) {
    const StepCase param = GetParam();
    KernelHarness h(kInstance, param.precision);
    const isa::DType act = h.dtypes().activation;
    const bool fp32 = act == isa::DType::Fp32;
    const double tolerance = fp32 ? 1e-4 : 5e-2;
    const BertConfig config = small_config();
    TrainingState state = initial_state(config, param.states);
    round_all(state.weights, act);
    const reference::AdamWHyper adam{1e-3, 0.9, 0.999, 1e-8, 0.01};
    const std::vector<MicroBatch> first = {micro_batch(0), micro_batch(1)}, second = {micro_batch(2), micro_batch(3)};
    // Clipping on, at a norm between the two steps' (measured: the first step's is the larger).
    const double norm_1 = reference_step(state, first, 1e9, adam, 3).norm;

    train::TrainingOptions options;
    options.micro_batch = kBatch;
    options.seq = kSeq;
    options.grad_accum = kAccum;
    options.max_grad_norm = float(0.7 * norm_1);
    options.optimizer_states = param.states;
    if (param.small_chunks) {
        options.table_chunk_rows = 128;
        options.optimizer_chunk_bytes = 4096;
    }
    if (param.spill) {
        options.spill_activations = true;
        options.pass_batch = 1;
    }
    const train::TrainingProgram program = train::training_step(h.program(), h.dtypes(), weight_slot_columns(h.program().spec()),
                                                                state.weights, state.m, state.v, options);
    ASSERT_EQ(program.parameters.size(), bert_tensor_slots(state.weights, true).size());
    DeviceRun run(kInstance, h.program().finish());

    uint32_t t = 3;  // AdamW's third step: m and v are an earlier step's
    for (const std::vector<MicroBatch>* batches : {&first, &second}) {
        const ReferenceStep want = reference_step(state, *batches, options.max_grad_norm, adam, t);
        const std::vector<float> losses =
            run_step(run, *batches, train::adamw_step_scalars(adam.lr, adam.weight_decay, adam.beta1, adam.beta2, t));
        const StepErrors e = compare_step(run, losses, state, want, fp32, tolerance);
        std::cout << param.name << " step " << t << ": loss " << losses[0] << ", norm "
                  << run.read(train::kGradNormOutput)[0] << " (reference " << want.norm << ", clipped at "
                  << options.max_grad_norm << "); worst gradient error " << e.gradient << ", worst update error "
                  << e.update << "\n";
        state = read_state(run, state);
        ++t;
    }
}

INSTANTIATE_TEST_SUITE_P(Trn1, TrainingStep,
                         ::testing::Values(StepCase{Precision::Fp32, isa::DType::Fp32, "fp32", true},
                                           StepCase{Precision::Bf16, isa::DType::Fp32, "bf16_fp32_states"},
                                           StepCase{Precision::Bf16, isa::DType::Bf16, "bf16_all"},
                                           StepCase{Precision::Fp32, isa::DType::Fp32, "fp32_spilled_in_passes", false, true},
                                           StepCase{Precision::Bf16, isa::DType::Fp32, "bf16_spilled_in_passes", false, true}),
                         [](const ::testing::TestParamInfo<StepCase>& info) { return std::string(info.param.name); });

// Data parallel (train/gradient_all_reduce.h): the same step on the two cores of a trn1.2xlarge,
// each on its own micro-batches (core c's micro-step k on micro_batch(2k + c)), the gradient sums
// all-reduced between the micro-steps and the optimizer, equals the one-core reference over the
// combined batch (each micro-step's four sequences at once): the cores' mean loss, the sums (the
// cores' sum after the all-reduce, the optimizer averaging over both), the norm and every update;
// both cores end with the same gradient sums and parameters bit for bit. Two steps, tolerances as above.
TEST_P(TrainingStep, DataParallelOnTwoCoresMatchesTheReferenceOverTheCombinedBatch) {
    const StepCase param = GetParam();
    if (param.spill || param.states != isa::DType::Fp32) GTEST_SKIP() << "fp32 and bf16 suffice";
    constexpr uint32_t kCores = 2;
    KernelHarness h(kInstance, param.precision);
    const isa::DType act = h.dtypes().activation;
    const bool fp32 = act == isa::DType::Fp32;
    const double tolerance = fp32 ? 1e-4 : 5e-2;
    const BertConfig config = small_config();
    TrainingState state = initial_state(config, param.states);
    round_all(state.weights, act);
    const reference::AdamWHyper adam{1e-3, 0.9, 0.999, 1e-8, 0.01};
    auto core_batch = [](uint32_t step, uint32_t k, uint32_t c) { return micro_batch(4 * step + 2 * k + c); };
    auto combined = [&](uint32_t step) {
        std::vector<MicroBatch> batches;
        for (uint32_t k = 0; k < kAccum; ++k) {
            MicroBatch all{TokenBatch{kBatch * kCores, kSeq, {}, {}, {}}, {}};
            for (uint32_t c = 0; c < kCores; ++c) {
                const MicroBatch b = core_batch(step, k, c);
                for (auto [to, from] : {std::pair{&all.tokens.input_ids, &b.tokens.input_ids},
                                        std::pair{&all.tokens.token_type_ids, &b.tokens.token_type_ids},
                                        std::pair{&all.tokens.attention_mask, &b.tokens.attention_mask},
                                        std::pair{&all.labels, &b.labels}})
                    to->insert(to->end(), from->begin(), from->end());
            }
            batches.push_back(std::move(all));
        }
        return batches;
    };
    train::TrainingOptions options;
    options.micro_batch = kBatch;
    options.seq = kSeq;
    options.grad_accum = kAccum;
    options.max_grad_norm = float(0.7 * reference_step(state, combined(0), 1e9, adam, 3).norm);
    options.cores = kCores;
    options.gradient_bucket_bytes = 256 * 1024;  // several buckets, the word table's alone
    const train::TrainingProgram program = train::training_step(h.program(), h.dtypes(), weight_slot_columns(h.program().spec()),
                                                                state.weights, state.m, state.v, options);
    DeviceRun run(kInstance, train::data_parallel_program(h.program().finish(), kCores));

    for (uint32_t step = 0, t = 3; step < 2; ++step, ++t) {
        ReferenceStep want = reference_step(state, combined(step), options.max_grad_norm, adam, t);
        std::vector<float> losses;
        for (uint32_t k = 0; k < kAccum; ++k) {
            for (uint32_t c = 0; c < kCores; ++c) {
                const MicroBatch b = core_batch(step, k, c);
                run.write_core(c, train::kInputIdsInput, {b.tokens.input_ids.begin(), b.tokens.input_ids.end()});
                run.write_core(c, train::kTokenTypeIdsInput, {b.tokens.token_type_ids.begin(), b.tokens.token_type_ids.end()});
                run.write_core(c, train::kAttentionMaskInput, {b.tokens.attention_mask.begin(), b.tokens.attention_mask.end()});
                run.write_core(c, train::kLabelsInput, {b.labels.begin(), b.labels.end()});
            }
            run.run(true, k == 0 ? train::kFirstMicroStepGraph : train::kMicroStepGraph);
            losses.push_back((run.read_core(0, train::kLossOutput)[0] + run.read_core(1, train::kLossOutput)[0]) / kCores);
        }
        run.run(true, train::kAllReduceGraph);
        run.write(train::kAdamWScalarsInput, train::adamw_step_scalars(adam.lr, adam.weight_decay, adam.beta1, adam.beta2, t));
        run.run(true, train::kOptimizerGraph);
        ReferenceStep summed = want;  // the device's sums are both cores' after the all-reduce
        for (const BertTensorSlot& slot : bert_tensor_slots(summed.gradient_sums, true))
            for (float& x : slot.tensor->values) x *= kCores;
        const StepErrors e = compare_step(run, losses, state, summed, fp32, tolerance);
        size_t differ = 0;
        for (const std::string& name : program.parameters)
            for (const std::string& tensor : {name, train::gradient_tensor(name), train::m_tensor(name)})
                differ += run.read_core(0, tensor) != run.read_core(1, tensor);
        EXPECT_EQ(differ, 0u) << "tensors that differ between the cores";
        std::cout << param.name << " on " << kCores << " cores, step " << t << ": loss " << losses[0]
                  << "; worst gradient error " << e.gradient << ", worst update error " << e.update << "\n";
        state = read_state(run, state);
    }
}

// One bf16 step of two micro-steps, its activations kept on chip or spilled: the losses, every
// gradient sum and every updated parameter, one after the other.
std::vector<float> step_results(bool spill) {
    const BertConfig config = small_config();
    TrainingState state = initial_state(config, isa::DType::Fp32);
    round_all(state.weights, isa::DType::Bf16);
    KernelHarness h(kInstance, Precision::Bf16);
    train::TrainingOptions options;
    options.micro_batch = kBatch;
    options.seq = kSeq;
    options.grad_accum = kAccum;
    options.max_grad_norm = 1.0f;
    options.spill_activations = spill;
    train::training_step(h.program(), h.dtypes(), weight_slot_columns(h.program().spec()), state.weights, state.m, state.v, options);
    DeviceRun run(kInstance, h.program().finish());
    std::vector<float> all =
        run_step(run, {micro_batch(0), micro_batch(1)}, train::adamw_step_scalars(1e-3, 0.01, 0.9, 0.999, 3));
    for (const BertTensorSlot& slot : bert_tensor_slots(state.weights, true))
        for (const std::string& name : {train::gradient_tensor(slot.name), slot.name}) {
            const std::vector<float> values = run.read(name);
            all.insert(all.end(), values.begin(), values.end());
        }
    return all;
}

// The same step with the forward's activations kept on chip and spilled to device memory (and read
// back by the backward layer by layer) gives the same losses, gradient sums and updated parameters
// bit for bit, in bf16 (the spill stores and loads bf16 tiles as they are): spilling changes where
// the activations wait, never what is computed. A simulation per process, so the spilled step runs
// in a child.
TEST(TrainingStepSpill, SpilledActivationsGiveTheSameStepBitForBit) {
    const std::filesystem::path file = nsim::test::scratch_path("spilled_step.bin");
    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        const std::vector<float> spilled = step_results(true);
        std::ofstream out(file, std::ios::binary);
        out.write(reinterpret_cast<const char*>(spilled.data()), std::streamsize(spilled.size() * sizeof(float)));
        out.close();
        _exit(out ? 0 : 1);
    }
    const std::vector<float> on_chip = step_results(false);
    int status = 0;
    waitpid(child, &status, 0);
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    std::ifstream in(file, std::ios::binary);
    std::vector<float> spilled(on_chip.size());
    in.read(reinterpret_cast<char*>(spilled.data()), std::streamsize(spilled.size() * sizeof(float)));
    ASSERT_TRUE(in) << "the spilled step's results";
    std::filesystem::remove(file);
    size_t differ = 0;
    for (size_t i = 0; i < on_chip.size(); ++i) differ += std::memcmp(&on_chip[i], &spilled[i], sizeof(float)) != 0;
    EXPECT_EQ(differ, 0u) << "of " << on_chip.size() << " values";
}

// Twelve steps on one micro-batch in bf16 with stochastic rounding and fp32 states: the program
// learns it (the loss falls by more than half).
TEST(TrainingSteps, LossFallsOverStepsInBf16WithStochasticRounding) {
    KernelHarness h(kInstance, Precision::Bf16);
    h.program().set_stochastic_rounding(7);
    const BertConfig config = small_config();
    TrainingState state = initial_state(config, isa::DType::Fp32);
    for (const auto* s : {&state.m, &state.v})
        for (const BertTensorSlot& slot : bert_tensor_slots(const_cast<BertWeights&>(*s), true))
            std::fill(slot.tensor->values.begin(), slot.tensor->values.end(), 0.0f);
    train::TrainingOptions options;
    options.micro_batch = kBatch;
    options.seq = kSeq;
    options.max_grad_norm = 1.0f;
    train::training_step(h.program(), h.dtypes(), weight_slot_columns(h.program().spec()), state.weights, state.m, state.v, options);
    DeviceRun run(kInstance, h.program().finish());
    const std::vector<MicroBatch> batch = {micro_batch(0)};
    std::vector<float> losses;
    for (uint32_t t = 1; t <= 12; ++t)
        losses.push_back(run_step(run, batch, train::adamw_step_scalars(1e-3, 0.01, 0.9, 0.999, t)).at(0));
    std::cout << "losses:";
    for (float l : losses) std::cout << " " << l;
    std::cout << "\n";
    EXPECT_LT(losses.back(), 0.5f * losses.front());
}

// The masks of one execution of a micro-step graph, regenerated by reference::dropout_multipliers (its own
// implementation of the hash the simulator documents) at the keys and rows train/dropout.h assigns:
// tokens numbered over the micro-batch, the attention's queries as rows and keys as elements.
reference::EncoderDropoutMasks dropout_masks(const BertConfig& c, const reference::DropoutDraw& hidden,
                                             const reference::DropoutDraw& attention, uint32_t seq) {
    using train::DropoutSite;
    const size_t tokens = kBatch * seq, width = size_t(c.hidden_size), heads = size_t(c.num_attention_heads);
    reference::EncoderDropoutMasks m;
    m.embedding_output = reference::dropout_multipliers(hidden, train::dropout_key(0, DropoutSite::EmbeddingOutput), 0,
                                                        tokens, width);
    for (uint32_t l = 0; l < uint32_t(c.num_hidden_layers); ++l) {
        reference::LayerDropoutMasks layer;
        layer.attention_output = reference::dropout_multipliers(
            hidden, train::dropout_key(l, DropoutSite::AttentionOutput), 0, tokens, width);
        layer.ffn_output =
            reference::dropout_multipliers(hidden, train::dropout_key(l, DropoutSite::FfnOutput), 0, tokens, width);
        layer.attention_probabilities = Tensor({kBatch, heads, seq, seq});
        for (uint32_t b = 0; b < kBatch; ++b)
            for (uint32_t h = 0; h < heads; ++h) {
                const Tensor block = reference::dropout_multipliers(
                    attention, train::dropout_key(l, DropoutSite::AttentionProbabilities, h), b * seq, seq, seq);
                std::copy(block.values.begin(), block.values.end(),
                          layer.attention_probabilities.values.begin() + (b * heads + h) * seq * seq);
            }
        m.layers.push_back(std::move(layer));
    }
    return m;
}

// Dropout on (0.1 on the hidden states, 0.2 on the attention probabilities, at Hugging Face's
// places), fp32: two steps of two micro-steps, each step's losses and gradient sums against the
// reference gradients with the masks regenerated for each micro-step's execution (the generator
// counts the micro-step graphs' executions: step * grad_accum + micro-step), learning rate 0 so that
// both steps start from the same parameters. The two steps' gradients differ by their masks alone.
// At seq 16 and at seq 256 (each probability row's mask over two 128-key blocks, in passes of one
// sequence as phase 2 runs; and with the FFN's forward and backward in chunks of `chunk_tokens`, as
// phase 2 builds it: each chunk's mask rows, and its gradient rows, where the chunk's tokens are).
void expect_dropout_gradients(uint32_t seq, bool spill, uint32_t chunk_tokens = 0) {
    KernelHarness h(kInstance, Precision::Fp32);
    BertConfig config = small_config();
    config.max_position_embeddings = std::max<int64_t>(config.max_position_embeddings, seq);
    TrainingState state = initial_state(config, isa::DType::Fp32);
    train::TrainingOptions options;
    options.micro_batch = kBatch;
    options.seq = seq;
    if (spill) {
        options.spill_activations = true;
        options.pass_batch = 1;
        options.chunk_tokens = chunk_tokens;
    }
    options.grad_accum = kAccum;
    options.hidden_dropout = 0.1f;
    options.attention_dropout = 0.2f;
    options.dropout_seed = 2024;
    train::training_step(h.program(), h.dtypes(), weight_slot_columns(h.program().spec()), state.weights, state.m, state.v, options);
    DeviceRun run(kInstance, h.program().finish());
    const std::vector<MicroBatch> batches = {micro_batch(0, seq), micro_batch(1, seq)};
    std::vector<float> first_sums;
    for (uint32_t step = 0; step < 2; ++step) {
        const std::vector<float> losses = run_step(run, batches, train::adamw_step_scalars(0.0, 0.01, 0.9, 0.999, 1));
        BertWeights sums;
        for (uint32_t k = 0; k < kAccum; ++k) {
            const uint32_t execution = step * kAccum + k;
            const reference::EncoderDropoutMasks masks =
                dropout_masks(config, {0.1f, 2024, execution}, {0.2f, 2024, execution}, seq);
            reference::BertGradients g =
                reference::bert_classification_gradients(state.weights, batches[k].tokens, batches[k].labels, &masks);
            EXPECT_LT(std::fabs(losses[k] - g.loss), 1e-4 * g.loss) << "step " << step << " loss " << k;
            if (k == 0) {
                sums = std::move(g.weights);
                continue;
            }
            const auto to = bert_tensor_slots(sums, true), from = bert_tensor_slots(g.weights, true);
            for (size_t i = 0; i < to.size(); ++i)
                for (size_t j = 0; j < to[i].tensor->values.size(); ++j) to[i].tensor->values[j] += from[i].tensor->values[j];
        }
        std::cout << "seq " << seq << " step " << step << ": worst gradient error "
                  << compare_gradient_sums(run, sums, 1e-4) << "\n";
        const std::vector<float> word = run.read(train::gradient_tensor(bert_tensor_slots(sums, true)[0].name));
        if (step == 0) first_sums = word;
        else EXPECT_GT(testing::relative_error(word, first_sums), 1e-2) << "the second step drew the first's masks";
    }
}

TEST(TrainingStepDropout, GradientsMatchTheReferenceWithTheMasksRegeneratedFromTheDocumentedHash) {
    expect_dropout_gradients(kSeq, false);
}

TEST(TrainingStepDropout, AttentionMasksSpanTheKeyBlocksOfLongSequences) { expect_dropout_gradients(256, true); }

TEST(TrainingStepDropout, FeedForwardInTokenChunksDropsAndDifferentiatesEachChunksRows) {
    expect_dropout_gradients(256, true, 128);
}

// A program whose matmul and activation dtypes differ, empty micro-batches, sequences longer than the
// position table, optimizer states of a third dtype or table chunks of no rows are refused before
// anything is built.
TEST(TrainingStepArguments, WhatTheProgramCannotTrainIsRefused) {
    const BertConfig config = small_config();
    const BertWeights weights = random_bert_weights(config, 17, true);
    const BertWeights m = adam_states(config, false, isa::DType::Fp32), v = adam_states(config, true, isa::DType::Fp32);
    train::TrainingOptions options;
    options.micro_batch = kBatch;
    options.seq = kSeq;
    KernelHarness mixed(kInstance, Precision::MixedBf16);
    EXPECT_THROW(train::training_step(mixed.program(), mixed.dtypes(), 128, weights, m, v, options),
                 std::invalid_argument);
    KernelHarness h(kInstance, Precision::Fp32);
    train::TrainingOptions empty = options;
    empty.micro_batch = 0;
    EXPECT_THROW(train::training_step(h.program(), h.dtypes(), 128, weights, m, v, empty), std::invalid_argument);
    train::TrainingOptions long_sequences = options;
    long_sequences.seq = 33;
    EXPECT_THROW(train::training_step(h.program(), h.dtypes(), 128, weights, m, v, long_sequences), std::invalid_argument);
    train::TrainingOptions fp16_states = options;
    fp16_states.optimizer_states = isa::DType::Fp16;
    EXPECT_THROW(train::training_step(h.program(), h.dtypes(), 128, weights, m, v, fp16_states), std::invalid_argument);
    train::TrainingOptions no_chunk = options;
    no_chunk.table_chunk_rows = 0;
    EXPECT_THROW(train::training_step(h.program(), h.dtypes(), 128, weights, m, v, no_chunk), std::invalid_argument);
}

}  // namespace
}  // namespace nsim::kernels
