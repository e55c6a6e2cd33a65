// neuron-monitor-prometheus: reads neuron-monitor's reports on stdin (one JSON document per line) and
// serves them on http://127.0.0.1:PORT/metrics in the Prometheus text format, with the real
// exporter's metric names (prometheus_exposition.h). Listens on the loopback interface only.
#include <atomic>
#include <chrono>
#include <iostream>
#include <string>
#include <thread>

#include <CLI/CLI.hpp>
#include <httplib.h>

#include "common/tool_main.h"
#include "neuron-monitor/prometheus_exposition.h"

namespace {

// A report of the largest instance is a few hundred KB of JSON on one line; a line past this is not
// neuron-monitor's output (/dev/zero, a binary file) and is refused before it fills the memory.
constexpr size_t kMaxReportLineBytes = size_t(16) << 20;

// The next line of `in` (without its newline) into `line`; false at the end of the input.
bool read_report_line(std::istream& in, std::string& line) {
    line.clear();
    for (char c; in.get(c);) {
        if (c == '\n') return true;
        if (line.size() == kMaxReportLineBytes)
            throw nsim::tools::UserError("stdin: a line longer than 16 MiB is not a neuron-monitor report");
        line.push_back(c);
    }
    return !line.empty();
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"Serve neuron-monitor's reports (read on stdin) as Prometheus metrics", "neuron-monitor-prometheus"};
    int port = 8000;
    app.add_option("--port", port, "TCP port on 127.0.0.1 (the real exporter's default: 8000)")->check(nsim::tools::in_range(1, 65535));

    return nsim::tools::run_tool(app, argc, argv, [&] {
        nsim::tools::PrometheusExposition exposition;
        httplib::Server server;
        server.Get("/metrics", [&](const httplib::Request&, httplib::Response& response) {
            response.set_content(exposition.text(), "text/plain; version=0.0.4");
        });
        if (!server.bind_to_port("127.0.0.1", port))
            throw nsim::tools::UserError("cannot listen on 127.0.0.1:" + std::to_string(port) + " (port in use?)");
        std::atomic<bool> listen_returned{false};
        std::thread serving([&] {
            server.listen_after_bind();
            listen_returned = true;
        });
        std::string line;
        std::string refusal;   // the server thread is joined before any error leaves
        try {
            while (read_report_line(std::cin, line)) {
                if (line.empty()) continue;
                try {
                    exposition.update(nlohmann::json::parse(line));
                } catch (const nlohmann::json::exception& e) {
                    std::cerr << "neuron-monitor-prometheus: skipped a line that is not a report: " << e.what() << "\n";
                }
            }
        } catch (const nsim::tools::UserError& e) {
            refusal = e.what();
        }
        // neuron-monitor has stopped (or sent what is not a report): nothing new will come. httplib's stop()
        // does nothing until the listen has begun, and input that ends at once (`echo x |`) gets here first:
        // the server then listened for ever.
        while (!server.is_running() && !listen_returned) std::this_thread::sleep_for(std::chrono::milliseconds(1));
        server.stop();
        serving.join();
        if (!refusal.empty()) throw nsim::tools::UserError(refusal);
        return 0;
    });
}
