// The main() of every tine Boost.Test binary (linked in by tine_cc_test).
//
// Besides the usual console log it makes Boost.Test write JUnit XML to the file
// Bazel names in $XML_OUTPUT_FILE, so tools/tally.py can count test cases.
// The options go through Boost's environment variables rather than argv: the
// command line still wins (Boost rejects a parameter given twice on argv), e.g.
//   bazel test //tests/core:deque_test --test_arg=--run_test=deque/steal
// and setenv(..., 0) keeps anything the caller already set in the environment.
#include <boost/test/unit_test.hpp>

#include <cstdlib>
#include <string>

namespace {

bool init_tine_tests() {
  // Name the master suite after the Bazel target, so the XML says where it came from.
  if (const char* target = std::getenv("TEST_TARGET")) {
    boost::unit_test::framework::master_test_suite().p_name.value = target;
  }
  return true;
}

}  // namespace

int main(int argc, char* argv[]) {
  if (const char* xml = std::getenv("XML_OUTPUT_FILE"); xml != nullptr && *xml != '\0') {
    // Console: enter/leave lines per case, so a hang shows which case. JUnit at
    // "message": everything but passing assertions (those make megabytes of XML).
    const std::string loggers = std::string("HRF,test_suite,stdout:JUNIT,message,") + xml;
    setenv("BOOST_TEST_LOGGER", loggers.c_str(), 0);
    setenv("BOOST_TEST_COLOR_OUTPUT", "no", 0);
  }
  return boost::unit_test::unit_test_main(&init_tine_tests, argc, argv);
}
