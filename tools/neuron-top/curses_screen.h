// The live neuron-top: redraws the session's frame with ncurses every refresh period and after
// every key, until q.
#pragma once

#include "neuron-top/top_session.h"

namespace nsim::tools {

int run_curses(TopSession& session);

}  // namespace nsim::tools
