#include "library/token_inputs.h"

#include <stdexcept>

#include <fmt/format.h>

#include "bert/embedding_tables_file.h"
#include "builder/program_builder.h"
#include "common/input_error.h"
#include "library/library_error.h"
#include "device/bert_program.h"
#include "reference/embeddings.h"

namespace nsim::library {
namespace {

std::vector<float> as_floats(const std::vector<int32_t>& ids) { return std::vector<float>(ids.begin(), ids.end()); }

}  // namespace

TokenInputs::TokenInputs(const isa::Container& program, const std::filesystem::path& model_file) : program_(program) {
    if (program.metadata_value("embedding") != "host") return;
    const std::string crc = program.metadata_value("host_embedding_tables_crc32");
    if (crc.empty())
        throw Error(fmt::format("model {} embeds on the host but has no embedding tables (its weights have none, "
                                    "or an older neuron-build wrote it): it cannot start from token ids",
                                    program.metadata_value("model")));
    const std::filesystem::path path = kernels::host_embedding_tables_path(model_file);
    if (!std::filesystem::exists(path))
        throw Error(fmt::format("{}: missing; neuron-build writes the host-side embedding tables of {} there "
                                    "(keep or rename the two files together)",
                                    path.string(), model_file.string()));
    try {
        host_tables_ = kernels::load_embedding_tables(path, metadata_u32(program, "host_embedding_tables_crc32", 0));
    } catch (const kernels::InputError& e) {
        throw Error(e.what());
    }
    const std::string eps = program.metadata_value("layer_norm_eps");
    try {
        if (!eps.empty()) layer_norm_eps_ = std::stod(eps);
    } catch (const std::exception&) {
        throw Error(fmt::format("the model's metadata 'layer_norm_eps' is '{}', not a number", eps));
    }
}

void TokenInputs::write(const kernels::TokenBatch& tokens, Session& session) const {
    namespace device = kernels::device;
    if (host_tables_) {
        write_tensor(session, device::kEmbeddings, kernels::reference::embeddings(*host_tables_, tokens, layer_norm_eps_).values);
    } else {
        write_tensor(session, device::kInputIds, as_floats(tokens.input_ids));
        write_tensor(session, device::kTokenTypeIds, as_floats(tokens.token_type_ids));
    }
    write_tensor(session, device::kAttentionMask, as_floats(tokens.attention_mask));
}

void TokenInputs::write_tensor(Session& session, const char* name, const std::vector<float>& values) const {
    for (const isa::TensorInfo& t : program_.tensors) {
        if (t.name != name || t.role != isa::TensorRole::Input) continue;
        std::vector<uint8_t> bytes = kernels::builder::encode_values(values, t.dtype);
        std::vector<uint8_t>& input = session.input(name);
        if (bytes.size() != input.size())
            throw std::logic_error(fmt::format("input {}: {} bytes for a {}-byte tensor", name, bytes.size(), input.size()));
        input = std::move(bytes);
        return;
    }
    throw Error(fmt::format("the model has no input tensor '{}'", name));
}

}  // namespace nsim::library
