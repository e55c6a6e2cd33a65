#include "neuron-sim/pairs_report.h"

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <nlohmann/json.hpp>

namespace nsim::tools {

void print_pairs_text(std::ostream& out, const PairsOutcome& o) {
    fmt::print(out, "classified {} sentence pairs of {} with {} on {}: {} cop{} x batch {}, {} execution{} "
                    "({} padding sequences not counted), {} pairs truncated to {} tokens\n",
               o.pairs, o.pairs_file, o.model, o.instance, o.copies, o.copies == 1 ? "y" : "ies", o.batch, o.executions,
               o.executions == 1 ? "" : "s", o.padding_sequences, o.truncated, o.seq_len);
    if (o.metrics) {
        const kernels::BinaryMetrics& m = *o.metrics;
        fmt::print(out, "accuracy   {:.2f} %  ({} of {} pairs)\n", 100 * m.accuracy, m.true_positive + m.true_negative, m.count);
        fmt::print(out, "F1         {:.4f}   (of label 1, paraphrase: precision {:.4f}, recall {:.4f})\n", m.f1, m.precision,
                   m.recall);
    } else {
        fmt::print(out, "{} has no labels: no accuracy or F1\n", o.pairs_file);
    }
    fmt::print(out, "simulated  device {:.3f} ms, end to end {:.3f} ms (host embedding, PCIe and runtime included)\n",
               1e3 * o.device_s, 1e3 * o.end_to_end_s);
    if (!o.predictions_file.empty()) fmt::print(out, "predictions written to {}\n", o.predictions_file);
}

void print_pairs_json(std::ostream& out, const PairsOutcome& o) {
    nlohmann::json j = {{"pairs_file", o.pairs_file},
                        {"model", o.model},
                        {"instance", o.instance},
                        {"pairs", o.pairs},
                        {"executions", o.executions},
                        {"padding_sequences", o.padding_sequences},
                        {"truncated", o.truncated},
                        {"seq_len", o.seq_len},
                        {"copies", o.copies},
                        {"batch", o.batch},
                        {"device_time_ms", 1e3 * o.device_s},
                        {"end_to_end_ms", 1e3 * o.end_to_end_s}};
    if (o.metrics)
        j.update({{"accuracy", o.metrics->accuracy},
                  {"f1", o.metrics->f1},
                  {"precision", o.metrics->precision},
                  {"recall", o.metrics->recall}});
    if (!o.predictions_file.empty()) j["predictions"] = o.predictions_file;
    out << j.dump(2) << "\n";
}

}  // namespace nsim::tools
