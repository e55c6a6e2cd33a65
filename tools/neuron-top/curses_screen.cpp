#include "neuron-top/curses_screen.h"

#include <ncurses.h>

#include <chrono>

namespace nsim::tools {
namespace {

// How often the screen re-reads the host state; the real tool refreshes about once a second.
constexpr auto kRefreshPeriod = std::chrono::milliseconds(1000);
constexpr int kKeyPollMs = 100;

enum Pair : short { kTitle = 1, kBar, kValue, kSelectedRow, kSelectedTab, kApps };

void set_up_colours() {
    if (!has_colors()) return;
    start_color();
    use_default_colors();
    init_pair(kTitle, COLOR_BLACK, COLOR_CYAN);
    init_pair(kBar, COLOR_GREEN, -1);
    init_pair(kValue, COLOR_GREEN, -1);
    init_pair(kSelectedRow, COLOR_BLACK, COLOR_RED);
    init_pair(kSelectedTab, COLOR_GREEN, -1);
    init_pair(kApps, COLOR_YELLOW, -1);
}

attr_t attribute_of(Style style) {
    switch (style) {
        case Style::Plain: return A_NORMAL;
        case Style::TitleBar: return COLOR_PAIR(kTitle);
        case Style::BarFill: return COLOR_PAIR(kBar) | A_BOLD;
        case Style::Value: return COLOR_PAIR(kValue);
        case Style::SelectedRow: return COLOR_PAIR(kSelectedRow);
        case Style::SelectedTab: return COLOR_PAIR(kSelectedTab) | A_BOLD;
        case Style::AppsLabel: return COLOR_PAIR(kApps) | A_BOLD;
    }
    return A_NORMAL;
}

void draw_line(int y, const Line& line) {
    move(y, 0);
    int x = 0;
    for (const Span& span : line.spans) {
        if (x >= COLS) break;
        const std::string text = span.text.substr(0, size_t(COLS - x));
        attrset(attribute_of(span.style));
        addstr(text.c_str());
        x += int(text.size());
    }
    attrset(attribute_of(line.fill));
    if (x < COLS) hline(' ', COLS - x);
    attrset(A_NORMAL);
}

void draw(const Frame& frame) {
    erase();
    const int footer = int(frame.footer.size());
    const int visible = std::max(0, LINES - footer);
    // Scroll the body so that the selected tree row stays on screen.
    int first = 0;
    if (frame.selected_body_line >= visible) first = frame.selected_body_line - visible + 1;
    for (int y = 0; y < visible && first + y < int(frame.body.size()); ++y) draw_line(y, frame.body[size_t(first + y)]);
    for (int i = 0; i < footer; ++i) draw_line(LINES - footer + i, frame.footer[size_t(i)]);
    refresh();
}

TopKey key_of(int ch, int* tab) {
    switch (ch) {
        case 'q': case 'Q': return TopKey::Quit;
        case KEY_UP: return TopKey::Up;
        case KEY_DOWN: return TopKey::Down;
        case KEY_LEFT: return TopKey::Left;
        case KEY_RIGHT: return TopKey::Right;
        case '\n': case '\r': case KEY_ENTER: return TopKey::Toggle;
        case 'x': case 'X': return TopKey::ToggleAll;
        case 'a': case 'A': return TopKey::PreviousTab;
        case 'd': case 'D': return TopKey::NextTab;
        case 'f': case 'F': return TopKey::ToggleFlops;
        default: break;
    }
    if (ch >= '1' && ch <= '9') {
        *tab = ch - '1';
        return TopKey::Tab1to9;
    }
    return TopKey::Other;
}

struct CursesSession {
    CursesSession() {
        initscr();
        cbreak();
        noecho();
        keypad(stdscr, TRUE);
        curs_set(0);
        timeout(kKeyPollMs);
        set_up_colours();
    }
    ~CursesSession() { endwin(); }
};

}  // namespace

int run_curses(TopSession& session) {
    CursesSession curses;
    auto next_refresh = std::chrono::steady_clock::now();
    bool dirty = true;
    for (;;) {
        if (std::chrono::steady_clock::now() >= next_refresh) {
            session.refresh();
            next_refresh = std::chrono::steady_clock::now() + kRefreshPeriod;
            dirty = true;
        }
        if (dirty) draw(session.frame(size_t(std::max(COLS, 1))));
        dirty = false;
        const int ch = getch();
        if (ch == ERR) continue;
        dirty = true;
        if (ch == KEY_RESIZE) continue;
        // key_of() sets `tab`, so it must run before `tab` is read (argument order is unspecified).
        int tab = 0;
        const TopKey key = key_of(ch, &tab);
        if (!session.handle(key, tab)) return 0;
    }
}

}  // namespace nsim::tools
