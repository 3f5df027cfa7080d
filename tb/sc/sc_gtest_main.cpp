// Entry point of every SystemC testbench executable: libsystemc owns main()
// and calls sc_main, which runs the GoogleTest cases. CTest runs each case in
// its own process, because SystemC can elaborate one simulation per process.
#include <gtest/gtest.h>
#include <systemc>

int sc_main(int argc, char* argv[]) {
  testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
