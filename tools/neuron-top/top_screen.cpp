#include "neuron-top/top_screen.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "common/tool_main.h"
#include "neuron-top/core_utilization.h"
#include "neuron-top/memory_tree.h"

namespace nsim::tools {
namespace {

constexpr size_t kRowLabelWidth = 5;        // "ND15 "
constexpr size_t kPercentWidth = 12;        // "[100.00%]", "[123.45 TF]"
constexpr size_t kMinBarWidth = 10;
constexpr size_t kVcpuLabelWidth = 19;      // "Runtime vCPU Usage "
constexpr size_t kVcpuValueWidth = 16;      // "[ 0.72%, 9.13%]"
constexpr size_t kModelIdWidth = 15;
constexpr size_t kMemoryWidth = 18;

std::string memory_text(uint64_t bytes) {
    static const char* const units[] = {"B", "KB", "MB", "GB", "TB"};
    double value = double(bytes);
    size_t unit = 0;
    while (value >= 1024.0 && unit + 1 < std::size(units)) value /= 1024.0, ++unit;
    return fmt::format("{:.1f}{}", value, units[unit]);
}

std::string padded(const std::string& text, size_t width) {
    return text.size() >= width ? text : text + std::string(width - text.size(), ' ');
}

std::string centred(const std::string& text, size_t width) {
    if (text.size() >= width) return text;
    const size_t left = (width - text.size()) / 2;
    return std::string(left, ' ') + text + std::string(width - text.size() - left, ' ');
}

Line bar_line(const std::string& text) { return {{{text, Style::TitleBar}}, Style::TitleBar}; }

void add_bar(Line& line, double fraction, size_t width) {
    const size_t filled = size_t(std::lround(std::clamp(fraction, 0.0, 1.0) * double(width)));
    line.spans.push_back({std::string(filled, '|'), Style::BarFill});
    line.spans.push_back({std::string(width - filled, ' ')});
}

std::vector<const driver::ProcessRecord*> selected_processes(const HostSnapshot& host, int pid) {
    std::vector<const driver::ProcessRecord*> selected;
    for (const auto& process : host.processes)
        if (pid == 0 || process.pid == pid) selected.push_back(&process);
    return selected;
}

std::string core_version(const HostSnapshot& host) {
    // The real tool says v3d for trn2 with two physical cores per logical one (tools.md 2).
    return host.spec.chip.core.version + (host.logical_neuroncore_config > 1 ? "d" : "");
}

// The FLOPS view's bars are full at the core's highest peak rate (configs/chips, tensor.peak_flops).
double peak_flops_per_logical_core(const HostSnapshot& host) {
    double peak = 0;
    for (const auto& [dtype, flops] : host.spec.chip.core.tensor.peak_flops) peak = std::max(peak, flops);
    return peak * host.logical_neuroncore_config;
}

void utilization_section(const HostSnapshot& host, const TopView& view, size_t width, Frame& frame) {
    const auto values = view.flops ? core_flops_per_s(host, view.pid) : core_utilization(host, view.pid);
    const double full = view.flops ? peak_flops_per_logical_core(host) : 1.0;
    double sum = 0;
    size_t cores = 0;
    for (const auto& device : values)
        for (double u : device) sum += u, ++cores;
    const double average = cores ? sum / double(cores) : 0.0;
    frame.body.push_back(bar_line(view.flops ? fmt::format("NeuronCore {} Utilization (Avg: {:.2f} TFLOPS)", core_version(host), average / 1e12)
                                             : fmt::format("NeuronCore {} Utilization (Avg: {:.2f}%)", core_version(host), 100.0 * average)));
    const size_t per_device = host.devices.empty() ? 1 : std::max<size_t>(1, host.devices.front().nc_count);
    const size_t cell = std::max(kMinBarWidth + kPercentWidth + 2, (width - kRowLabelWidth) / per_device);
    const size_t bar = cell - kPercentWidth - 2;
    std::string header(kRowLabelWidth, ' ');
    for (size_t nc = 0; nc < per_device; ++nc) header += centred(fmt::format("NC{}", nc), bar) + std::string(kPercentWidth + 2, ' ');
    frame.body.push_back({{{header}}});
    for (size_t d = 0; d < values.size(); ++d) {
        Line line{{{padded(fmt::format("ND{}", d), kRowLabelWidth)}}};
        for (double u : values[d]) {
            add_bar(line, full > 0 ? u / full : 0.0, bar);
            line.spans.push_back({" "});
            const std::string value = view.flops ? fmt::format("[{:6.2f} TF]", u / 1e12) : fmt::format("[{:5.2f}%]", 100.0 * u);
            line.spans.push_back({padded(value, kPercentWidth), Style::Value});
            line.spans.push_back({" "});
        }
        frame.body.push_back(line);
    }
    frame.body.push_back({});
}

void vcpu_section(const CpuUsage& cpu, size_t width, Frame& frame) {
    frame.body.push_back(bar_line("vCPU Utilization"));
    const size_t bar = std::max(kMinBarWidth, width > kVcpuLabelWidth + kVcpuValueWidth + 1 ? width - kVcpuLabelWidth - kVcpuValueWidth - 1 : 0);
    auto row = [&](const std::string& label, const CpuShare& share) {
        Line line{{{padded(label, kVcpuLabelWidth)}}};
        add_bar(line, share.user + share.system, bar);
        line.spans.push_back({" "});
        line.spans.push_back({fmt::format("[{:5.2f}%,{:5.2f}%]", 100.0 * share.user, 100.0 * share.system), Style::Value});
        frame.body.push_back(line);
    };
    row("System vCPU Usage", cpu.machine);
    row("Runtime vCPU Usage", cpu.runtime);
    frame.body.push_back({});
}

void memory_summary_section(const HostSnapshot& host, int pid, Frame& frame) {
    frame.body.push_back(bar_line("Memory Usage Summary"));
    uint64_t resident = 0, host_driver = 0, host_tensors = 0, device = 0;
    driver::CoreMemoryUsage models;
    for (const auto* process : selected_processes(host, pid)) {
        resident += resident_bytes(process->pid);
        host_driver += process->host_memory_bytes;
        for (const auto& [index, bytes] : process->device_memory_bytes) device += bytes;
        for (const auto& model : process->models) {
            host_tensors += model.host_bytes;
            for (const auto& usage : model.core_memory) {
                models.tensors += usage.tensors;
                models.constants += usage.constants;
                models.model_code += usage.model_code;
            }
        }
    }
    device = std::max(device, models.total());
    // The driver's host memory holds the models' host tensors and the DMA rings, queues and buffers.
    const uint64_t dma_buffers = host_driver - std::min(host_driver, host_tensors);
    auto item = [](Line& line, const std::string& label, uint64_t bytes) {
        line.spans.push_back({label + ": "});
        line.spans.push_back({padded(memory_text(bytes), 10), Style::Value});
        line.spans.push_back({"  "});
    };
    Line host_line{{{"Host Used Memory     "}}};
    item(host_line, "Total", resident + host_driver);
    item(host_line, "Tensors", host_tensors);
    item(host_line, "Constants", 0);
    item(host_line, "DMA Buffers", dma_buffers);
    item(host_line, "App. Memory", resident);
    Line device_line{{{"Device Used Memory   "}}};
    item(device_line, "Total", device);
    item(device_line, "Tensors", models.tensors);
    item(device_line, "Constants", models.constants);
    item(device_line, "Model Code", models.model_code);
    item(device_line, "Runtime Memory", device - models.total());
    item(device_line, "Model Scratchpad", 0);
    frame.body.push_back(host_line);
    frame.body.push_back(device_line);
    frame.body.push_back({});
}

void memory_details_section(const HostSnapshot& host, const TopView& view, size_t width, Frame& frame) {
    frame.body.push_back(bar_line("Memory Usage Details"));
    const size_t name_width = std::max<size_t>(30, width > kModelIdWidth + kMemoryWidth ? width - kModelIdWidth - kMemoryWidth : 0);
    frame.body.push_back({{{std::string(name_width, ' ') + padded("Model ID", kModelIdWidth) + "Device Memory"}}});
    const auto rows = memory_tree(host, view.pid, view.expanded);
    for (size_t r = 0; r < rows.size(); ++r) {
        const TreeRow& row = rows[r];
        const std::string marker = row.expandable ? (row.expanded ? "[-] " : "[+] ") : "";
        const std::string name = " " + std::string(4 * row.depth, ' ') + marker + row.label;
        const bool selected = view.show_selection && r == view.selected_row;
        Line line;
        line.spans.push_back({padded(name, name_width), selected ? Style::SelectedRow : Style::Plain});
        line.spans.push_back({padded(row.model_id, kModelIdWidth), selected ? Style::SelectedRow : Style::Plain});
        line.spans.push_back({padded(memory_text(row.device_bytes), kMemoryWidth), selected ? Style::SelectedRow : Style::Value});
        if (selected) {
            line.fill = Style::SelectedRow;
            frame.selected_body_line = int(frame.body.size());
        }
        frame.body.push_back(line);
    }
}

Line title_line(const HostSnapshot& host, size_t width) {
    return bar_line(centred(fmt::format("neuron-top {} running on {} ({})", kToolsVersion, host.instance_id, host.spec.instance.name), width));
}

}  // namespace

std::string process_tag(const HostSnapshot& host, int pid) {
    for (const auto& record : host.activity)
        if (record.pid == pid && !record.tag.empty()) return record.tag;
    return std::to_string(pid);
}

std::vector<int> tab_pids(const HostSnapshot& host) {
    std::vector<int> pids;
    for (const auto& process : host.processes) pids.push_back(process.pid);
    return pids;
}

Frame top_frame(const HostSnapshot& host, const TopView& view, const CpuUsage& cpu, size_t width) {
    Frame frame;
    frame.body.push_back(title_line(host, width));
    utilization_section(host, view, width, frame);
    vcpu_section(cpu, width, frame);
    memory_summary_section(host, view.pid, frame);
    memory_details_section(host, view, width, frame);

    Line tabs{{{"Neuron Apps", Style::AppsLabel}, {"      "}}};
    std::vector<int> pids = tab_pids(host);
    pids.insert(pids.begin(), 0);
    for (size_t t = 0; t < pids.size(); ++t) {
        const std::string tag = fmt::format("[{}]:{}", t + 1, pids[t] == 0 ? "all" : process_tag(host, pids[t]));
        const bool selected = pids[t] == view.pid;
        tabs.spans.push_back({selected ? ">" + tag + "<" : " " + tag + " ", selected ? Style::SelectedTab : Style::Plain});
        tabs.spans.push_back({"      "});
    }
    frame.footer.push_back(tabs);
    frame.footer.push_back({{{"  q: quit   arrows: move tree selection   enter: expand/collapse tree   x: expand/collapse entire tree"
                              "   a/d: previous/next tab   f: FLOPS on/off   1-9: select tab"}}});
    return frame;
}

Frame no_device_frame(const HostSnapshot& host, const std::string& message, size_t width) {
    Frame frame;
    frame.body.push_back(title_line(host, width));
    frame.body.push_back({{{message}}});
    frame.footer.push_back({{{"  q: quit"}}});
    return frame;
}

}  // namespace nsim::tools
