// The grid of a `neuron-sim sweep SWEEP.yaml`: the points (task, instance, model, dtype, cores, seq,
// grad_accum, batch) it builds and runs, in grid order, and how long each runs. The file is one grid
// (each key a value or a list of values: the points are every combination, batch varying fastest) or
// `grids:`, a list of such grids run one after another, the top-level keys their defaults:
//
//   iterations: 2                 # inference: executions per point (the report's p50 over them)
//   steps: 1                      # training: optimizer steps per point
//   grids:
//     - task: inference           # inference (neuron-build bert + run), classify or pretrain (bert-train + train)
//       instance: [inf1.xlarge, trn1.2xlarge]
//       model: tiny.json          # bert-base, bert-large or a config.json (relative to this file)
//       batch: [1, 2, 4]          # training: the micro-batch
//       seq: 32
//     - task: classify
//       instance: trn1.2xlarge
//       ...
//
// A point keeps its values as written: a value the build refuses (an unknown dtype, batch 0, a shape
// that does not fit) is that point's error row, not the sweep's. What is wrong with the file itself
// (YAML syntax, an unknown key, a map where a value belongs, an unknown instance) is a UserError.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace nsim::tools {

struct SweepPoint {
    std::string task = "inference";
    std::string instance, model;
    std::string dtype;            // empty: the task's default (mixed for inference, bf16 for training)
    std::string cores = "1";
    std::string seq = "128";
    std::string grad_accum = "1";
    std::string batch;

    bool training() const { return task != "inference"; }
    // The dtype the build gets: dtype, or the task's default.
    std::string effective_dtype() const;
    // The point's parameters in the CSV's column order (sweep_table.h).
    std::vector<std::string> parameters() const;
};

struct SweepGrid {
    std::vector<SweepPoint> points;   // grid order
    uint32_t iterations = 1;          // inference executions per point
    uint32_t steps = 1;               // training optimizer steps per point
    std::string title;                // the plot's title; empty: one made from the file's name
};

// The grid of `yaml` (the text of `file`); models that are files are taken relative to the file's
// directory; every instance must be one of `instance_names`. UserError "FILE: ..." otherwise.
SweepGrid parse_sweep_grid(const std::string& yaml, const std::string& file,
                           const std::vector<std::string>& instance_names);

}  // namespace nsim::tools
