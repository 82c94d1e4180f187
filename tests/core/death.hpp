#ifndef TINE_TESTS_CORE_DEATH_HPP
#define TINE_TESTS_CORE_DEATH_HPP

// Death tests: runs a piece of code in a child process (fork(2)) and reports how it ended and
// what it wrote to stderr, so that a test can check that a misuse stops the program with tine's
// message. Call it while the test process has no other threads (create pools inside `body`).

#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace tine_tests {

struct death_result {
  bool aborted = false;  // ended by SIGABRT (tine::detail::fatal calls std::abort)
  int exit_code = -1;    // when it exited normally instead
  std::string stderr_text;
};

template <typename Body>
death_result run_in_child(Body body) {
  int fds[2];
  if (::pipe(fds) != 0) {
    std::abort();
  }
  std::fflush(nullptr);  // or the child would print the parent's buffered output again
  const pid_t pid = ::fork();
  if (pid < 0) {
    std::abort();
  }
  if (pid == 0) {
    // The test framework's signal handlers would catch the abort and carry on running tests in
    // this child: restore the defaults, and never return into the framework.
    for (int sig : {SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL}) {
      std::signal(sig, SIG_DFL);
    }
    ::close(fds[0]);
    ::dup2(fds[1], STDERR_FILENO);
    try {
      body();
    } catch (...) {
      ::_exit(2);
    }
    ::_exit(0);
  }
  ::close(fds[1]);
  death_result r;
  char buf[4096];
  for (;;) {
    const ssize_t n = ::read(fds[0], buf, sizeof buf);
    if (n <= 0) {
      break;
    }
    r.stderr_text.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  r.aborted = WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

}  // namespace tine_tests

#endif  // TINE_TESTS_CORE_DEATH_HPP
