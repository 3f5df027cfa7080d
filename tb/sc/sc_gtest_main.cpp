// Entry point of every SystemC testbench executable: main() silences the
// SystemC banner and hands over to SystemC, which calls sc_main, which runs
// the GoogleTest cases. CTest runs each case in its own process, because
// SystemC can elaborate one simulation per process.
#include <gtest/gtest.h>

#include <cstdlib>
#include <systemc>

int main(int argc, char* argv[]) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
  setenv("SMSHARE_TRACE_CACHE_DIR", SMSHARE_TEST_TRACE_CACHE_DIR, 1);
  return sc_core::sc_elab_and_sim(argc, argv);
}

int sc_main(int argc, char* argv[]) {
  testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
