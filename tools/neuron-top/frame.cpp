#include "neuron-top/frame.h"

namespace nsim::tools {

std::string frame_text(const Frame& frame) {
    std::string out;
    auto add = [&](const Line& line) {
        std::string text;
        for (const Span& span : line.spans) text += span.text;
        while (!text.empty() && text.back() == ' ') text.pop_back();
        out += text + "\n";
    };
    for (const Line& line : frame.body) add(line);
    for (const Line& line : frame.footer) add(line);
    return out;
}

}  // namespace nsim::tools
