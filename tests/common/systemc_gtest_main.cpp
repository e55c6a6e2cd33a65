// Test binaries that link SystemC enter through sim/systemc_main.cpp, which calls sc_main, so
// sc_main is where GoogleTest runs, inside a proper SystemC context.

#include <gtest/gtest.h>
#include <systemc>

int sc_main(int argc, char** argv) {
    testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}
