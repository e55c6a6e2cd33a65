// The entry point of every program that links SystemC. libsystemc has its own main(), which prints a
// copyright banner before our code runs; ours silences it (DESIGN.md: tools and tests never show it)
// and then hands over to SystemC, which calls the program's sc_main.
#include <cstdlib>

#include <systemc>

int main(int argc, char** argv) {
    setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
    return sc_core::sc_elab_and_sim(argc, argv);
}
