// One screen of neuron-top as styled text, independent of how it is shown: the curses view colours
// the spans, `neuron-top --once` prints their text.
#pragma once

#include <string>
#include <vector>

namespace nsim::tools {

enum class Style {
    Plain,
    TitleBar,      // title and section titles: full-width bars
    BarFill,       // the filled part of a utilisation bar
    Value,         // amounts and percentages
    SelectedRow,   // the tree row the arrows move
    SelectedTab,
    AppsLabel,
};

struct Span {
    std::string text;
    Style style = Style::Plain;
};

struct Line {
    std::vector<Span> spans;
    Style fill = Style::Plain;     // how the rest of the line after the spans is drawn
};

struct Frame {
    std::vector<Line> body;
    std::vector<Line> footer;      // kept at the bottom of the screen
    int selected_body_line = -1;   // where the selected tree row is, to keep it on screen
};

// The frame as plain text, one line per Line, trailing spaces removed.
std::string frame_text(const Frame& frame);

}  // namespace nsim::tools
