// neuron_sim's kernel builder: kernels/builder (ProgramBuilder, CoreBuilder, buffers and views) as a
// kernel writer uses it from Python. Instructions are emitted in one sequential order that computes
// the right values; the builder derives every semaphore wait and signal from the buffers each
// instruction reads and writes (kernels/builder/core_builder.h). Engines, dtypes, functions and ALU
// ops are named as in assembly text ("pe", "act", "dve", "pool"; "bf16"; "gelu"; "add").
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include <pybind11/stl.h>

#include "builder/program_builder.h"
#include "library/instance.h"
#include "library/library_error.h"
#include "python_module.h"
#include "tensor_files.h"

namespace nsim::python {
namespace {

namespace builder = kernels::builder;

template <typename T>
T named(std::optional<T> (*from_name)(std::string_view), const std::string& name, const char* what) {
    if (const std::optional<T> value = from_name(name)) return *value;
    throw py::value_error("unknown " + std::string(what) + " '" + name + "'");
}
isa::DType dtype_of(const std::string& name) { return named(isa::dtype_from_name, name, "dtype"); }
isa::Engine engine_of(const std::string& name) { return named(isa::engine_from_name, name, "engine"); }
isa::AluOp alu_of(const std::string& name) { return named(isa::alu_op_from_name, name, "ALU op"); }

// A program being built, and whether finish() has taken it.
class KernelBuilder {
public:
    KernelBuilder(const std::string& instance, int64_t core_count) {
        const uint32_t cores = unsigned_arg(core_count, "cores");
        if (cores == 0) throw py::value_error("a program has at least one core");
        const config::HostSpec spec = host_spec_or_error([&] { return library::host_spec(instance, {}); });
        program_ = std::make_unique<builder::ProgramBuilder>(spec.chip.core, cores);
    }

    builder::ProgramBuilder& program() {
        if (!program_) throw library::Error("this KernelBuilder has finished its program; start a new one");
        return *program_;
    }

    uint32_t add_tensor(const std::string& name, const std::string& role, const std::string& dtype, std::vector<uint64_t> shape,
                        const py::object& data) {
        const std::optional<isa::TensorRole> r = isa::role_from_name(role);
        if (!r) throw py::value_error("unknown tensor role '" + role + "' (input, output, weight, scratch, state)");
        std::vector<uint8_t> bytes;
        if (!data.is_none()) {
            isa::TensorInfo info;
            info.name = name;
            info.dtype = dtype_of(dtype);
            info.shape = shape;
            bytes = tensor_files::tensor_bytes(info, to_npy(data), "the array");
        }
        return program().add_tensor(name, *r, dtype_of(dtype), std::move(shape), std::move(bytes));
    }

    isa::Container finish() {
        isa::Container done = program().finish();
        // Kept, not freed: a DmaChannel Python still holds lies in one of its cores.
        finished_ = std::move(program_);
        return done;
    }

private:
    std::unique_ptr<builder::ProgramBuilder> program_, finished_;
};

// One core of a KernelBuilder's program, as Python holds it: every call reaches the core through the
// builder, so that a core used after finish() says so instead of writing into a finished program.
struct Core {
    KernelBuilder* owner;
    uint32_t index;
    builder::CoreBuilder& get() const { return owner->program().core(index); }
};

using Piece = std::tuple<builder::View, builder::View>;

std::vector<builder::DmaPiece> pieces_of(const std::vector<Piece>& pieces) {
    std::vector<builder::DmaPiece> out;
    for (const auto& [dst, src] : pieces) out.push_back({dst, src});
    return out;
}

}  // namespace

void bind_builder(py::module_& m) {
    py::class_<isa::AccessPattern>(m, "AccessPattern", "An operand: where, of which dtype, in which order (isa/FORMAT.md)")
        .def_readonly("partition_start", &isa::AccessPattern::partition_start)
        .def_readonly("partition_count", &isa::AccessPattern::partition_count)
        .def_readonly("offset", &isa::AccessPattern::offset)
        .def_property_readonly("dtype", [](const isa::AccessPattern& ap) { return std::string(isa::name_of(ap.dtype)); })
        .def_property_readonly("space", [](const isa::AccessPattern& ap) { return std::string(isa::name_of(ap.space)); });

    py::class_<builder::Buffer>(m, "Buffer", "A region of SBUF or PSUM a kernel allocated")
        .def_readonly("partition_start", &builder::Buffer::partition_start)
        .def_readonly("partitions", &builder::Buffer::partitions)
        .def_readonly("offset", &builder::Buffer::offset)
        .def_readonly("bytes", &builder::Buffer::bytes, "bytes per partition");

    py::class_<builder::View>(m, "View", "An operand and the buffer it lies in")
        .def_readonly("ap", &builder::View::ap)
        .def("part", &builder::View::part, "The same view marked as a partial write (see kernels/builder/on_chip_view.h)");

    m.def("tile", [](const builder::Buffer& b, const std::string& dtype, int64_t p0, int64_t np, int64_t first, int64_t count) {
              return builder::tile(b, dtype_of(dtype), unsigned_arg(p0, "partition"), unsigned_arg(np, "partitions"),
                                   unsigned_arg64(first, "first"), unsigned_arg(count, "count"));
          },
          py::arg("buffer"), py::arg("dtype"), py::arg("partition"), py::arg("partitions"), py::arg("first"), py::arg("count"),
          "Elements [first, first + count) of partitions [partition, partition + partitions) of the buffer");
    m.def("dram_rows",
          [](int64_t tensor, const std::string& dtype, int64_t row_length, int64_t row, int64_t rows, int64_t column,
             int64_t columns, int32_t row_stride) {
              return builder::dram(builder::dram_rows(unsigned_arg(tensor, "tensor"), dtype_of(dtype),
                                                      unsigned_arg64(row_length, "row_length"), unsigned_arg64(row, "row"),
                                                      unsigned_arg(rows, "rows"), unsigned_arg64(column, "column"),
                                                      unsigned_arg(columns, "columns"), row_stride));
          },
          py::arg("tensor"), py::arg("dtype"), py::arg("row_length"), py::arg("row"), py::arg("rows"), py::arg("column"),
          py::arg("columns"), py::arg("row_stride") = -1,
          "Rows [row, row + rows) x columns [column, column + columns) of a row-major device-memory tensor (its index from "
          "add_tensor) whose rows hold row_length elements; row_stride 0 repeats one row on every partition");

    py::class_<builder::DmaChannel>(m, "DmaChannel", "A group of DMA queues with one semaphore")
        .def_property_readonly("name", &builder::DmaChannel::name);

    py::class_<Core>(m, "CoreBuilder", "The instruction streams of one program core")
        .def_property_readonly("core", [](const Core& c) { return c.get().core(); })
        .def_property_readonly("partitions", [](const Core& c) { return c.get().spec().sbuf.partitions; })
        .def_property_readonly("psum_banks", [](const Core& c) { return c.get().psum_banks(); })
        .def_property_readonly("max_contraction", [](const Core& c) { return c.get().spec().tensor.max_contraction; })
        .def_property_readonly("max_stationary_free", [](const Core& c) { return c.get().spec().tensor.max_stationary_free; })
        .def_property_readonly("max_moving_free", [](const Core& c) { return c.get().spec().tensor.max_moving_free; })
        .def("sbuf", [](const Core& c, int64_t bytes, const std::string& what) {
                 return c.get().sbuf(unsigned_arg64(bytes, "bytes_per_partition"), what);
             }, py::arg("bytes_per_partition"), py::arg("what"),
             "A new SBUF buffer over every partition")
        .def("psum", [](const Core& c, int64_t bank, int64_t first, int64_t count) {
                 return c.get().psum(unsigned_arg(bank, "bank"), unsigned_arg(first, "first"), unsigned_arg(count, "count"));
             }, py::arg("bank"), py::arg("first") = 0,
             py::arg("count") = builder::CoreBuilder::kPsumGranules, "Granules of a PSUM bank as a buffer")
        .def("dma_channel", [](const Core& c, const std::string& name, int64_t queue_class, int64_t width) -> builder::DmaChannel& {
                 return c.get().dma_channel(name, unsigned_arg(queue_class, "queue_class"), unsigned_arg(width, "width"));
             }, py::arg("name"), py::arg("queue_class") = 0, py::arg("width") = 0,
             py::return_value_policy::reference_internal, "A DMA channel (width 0: a queue on every DMA engine of the core)")
        .def("dma", [](const Core& c, builder::DmaChannel& ch, const std::vector<Piece>& pieces) { c.get().dma(ch, pieces_of(pieces)); },
             py::arg("channel"), py::arg("pieces"), "One transfer: a list of (dst, src) views")
        .def("copy", [](const Core& c, builder::DmaChannel& ch, const builder::View& dst, const builder::View& src, int64_t pieces) {
                 c.get().dma(ch, builder::CoreBuilder::split_rows(dst, src, unsigned_arg(pieces, "pieces")));
             },
             py::arg("channel"), py::arg("dst"), py::arg("src"), py::arg("pieces") = 1,
             "One transfer of dst <- src, split by partitions (rows) into up to `pieces` pieces over the channel's queues")
        .def("matmul", [](const Core& c, const builder::View& dst, const builder::View& stationary, const builder::View& moving,
                            bool accumulate) { c.get().matmul(dst, stationary, moving, accumulate); }, py::arg("dst"), py::arg("stationary"), py::arg("moving"),
             py::arg("accumulate") = false,
             "dst[M, N] (PSUM) = stationary[K, M]^T @ moving[K, N]: the contraction K on the partitions")
        .def("transpose", [](const Core& c, const builder::View& dst, const builder::View& src) { c.get().pe_transpose(dst, src); }, py::arg("dst"), py::arg("src"), "On the tensor engine, into PSUM")
        .def("activation",
             [](const Core& c, const builder::View& dst, const builder::View& src, const std::string& func, float scale,
                const std::optional<builder::View>& bias) {
                 c.get().activation(dst, src, named(isa::activation_from_name, func, "activation function"), scale,
                              bias ? &*bias : nullptr);
             },
             py::arg("dst"), py::arg("src"), py::arg("func") = "identity", py::arg("scale") = 1.0f, py::arg("bias") = py::none(),
             "dst = func(src * scale + bias) on the scalar engine (bias: a per-partition column)")
        .def("tensor_tensor",
             [](const Core& c, const std::string& engine, const builder::View& dst, const builder::View& a,
                const builder::View& b, const std::string& op) { c.get().tensor_tensor(engine_of(engine), dst, a, b, alu_of(op)); },
             py::arg("engine"), py::arg("dst"), py::arg("a"), py::arg("b"), py::arg("op"), "dst = a OP b, element-wise")
        .def("tensor_scalar",
             [](const Core& c, const std::string& engine, const builder::View& dst, const builder::View& src,
                const std::string& op0, float imm0, const std::string& op1, float imm1) {
                 c.get().tensor_scalar(engine_of(engine), dst, src, alu_of(op0), imm0, alu_of(op1), imm1);
             },
             py::arg("engine"), py::arg("dst"), py::arg("src"), py::arg("op0"), py::arg("imm0"), py::arg("op1") = "bypass",
             py::arg("imm1") = 0.0f, "dst = (src OP0 imm0) OP1 imm1")
        .def("tensor_copy",
             [](const Core& c, const std::string& engine, const builder::View& dst, const builder::View& src) {
                 c.get().tensor_copy(engine_of(engine), dst, src);
             },
             py::arg("engine"), py::arg("dst"), py::arg("src"), "dst = src (converting dtypes)")
        .def("memset",
             [](const Core& c, const std::string& engine, const builder::View& dst, float value) {
                 c.get().memset(engine_of(engine), dst, value);
             },
             py::arg("engine"), py::arg("dst"), py::arg("value"));

    py::class_<KernelBuilder>(m, "KernelBuilder",
        "A program for the NeuronCores of an instance type, built instruction by instruction; the builder derives the "
        "semaphores (kernels/builder)")
        .def(py::init<const std::string&, int64_t>(), py::arg("instance"), py::arg("cores") = 1)
        .def("add_tensor", &KernelBuilder::add_tensor, py::arg("name"), py::arg("role"), py::arg("dtype"), py::arg("shape"),
             py::arg("data") = py::none(),
             "A device-memory tensor (role input, output or weight); returns its index for dram_rows. `data`: its initial "
             "values as a numpy array")
        .def("set_metadata", [](KernelBuilder& b, const std::string& key, const std::string& value) { b.program().set_metadata(key, value); })
        .def("core", [](KernelBuilder& b, int64_t core_index) {
                 const uint32_t index = unsigned_arg(core_index, "index");
                 if (index >= b.program().cores()) throw py::index_error("the program has " + std::to_string(b.program().cores()) + " core(s)");
                 return Core{&b, index};
             },
             py::arg("index") = 0, py::keep_alive<0, 1>())
        .def("finish", &KernelBuilder::finish, "The finished Program (once)");
}

}  // namespace nsim::python
