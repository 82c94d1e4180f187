#include <tine/analysis/analyze.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <tine/analysis/span_recorder.hpp>
#include <tine/analysis/tick_clock.hpp>
#include <tine/core/fork_call.hpp>
#include <tine/core/join.hpp>

namespace tine {

struct analyzer::state {
  explicit state(analysis_options&& o)
      : options(std::move(o)),
        spt(options.unit_strands ? 1 : detail::seconds_per_tick()),
        steal_cost(options.steal_cost >= 0 ? options.steal_cost
                   : options.unit_strands  ? 0
                                           : measure_steal_cost()),
        worker(64, owner_fence::none),
        recorder(static_cast<std::uint64_t>(std::llround(steal_cost / spt)), options.unit_strands,
                 options.repeats > 1) {}

  analysis_options options;
  double spt;
  double steal_cost;
  worker_context worker;
  detail::span_recorder recorder;
  std::atomic<bool> busy{false};
  int runs = 0;
  int differing_runs = 0;
};

analyzer::analyzer(analysis_options options) : m(new state(std::move(options))) {
  m->worker.set_worker_count(m->options.workers != 0
                                 ? m->options.workers
                                 : std::max(1U, std::thread::hardware_concurrency()));
  m->worker.set_scheduler(*this);
}

analyzer::~analyzer() { delete m; }

void analyzer::schedule(submit_node* node) {
  if (current_worker() != nullptr) {
    detail::fatal(
        "tine::analyzer: work was submitted to it from a worker thread (resume_on, spawn or a "
        "future inside an analysed task, or a task of another scheduler); an analyzer runs "
        "only roots, each on the thread that submits it (sync_wait, a blocking algorithm)");
  }
  // acquire/release: one root at a time; the next one sees what this one recorded.
  if (m->busy.exchange(true, std::memory_order_acquire)) {
    detail::fatal(
        "tine::analyzer: a root was submitted while another thread runs one on it; give each "
        "thread its own analyzer");
  }
  worker_context& w = m->worker;
  w.bind();
  try {
    w.set_backend(&m->recorder);
  } catch (...) {
    w.unbind();
    m->busy.store(false, std::memory_order_release);
    throw;
  }
  detail::tls_recorder = &m->recorder;
  m->recorder.start();
  w.run_submitted(node);
  m->recorder.stop();
  detail::tls_recorder = nullptr;
  if (!m->recorder.balanced()) {
    detail::fatal(
        "tine::analyzer: an analysed task left the analysis thread in the middle of a fork-join "
        "scope (resume_on to another scheduler); analyze computations that stay in their "
        "fork-join tree");
  }
  w.unbind();  // and the recorder with it
  if (m->runs != 0 && m->options.repeats > 1 && !m->recorder.keep_shorter()) {
    ++m->differing_runs;
  }
  ++m->runs;
  m->busy.store(false, std::memory_order_release);
}

analysis analyzer::result() const {
  analysis::measures measures = m->recorder.finish(m->spt);
  measures.name = m->options.name;
  measures.steal_cost = m->steal_cost;
  measures.steal_cost_measured = m->options.steal_cost < 0 && !m->options.unit_strands;
  if (measures.steal_cost_measured) {
    const steal_cost_measurement& cost = measure_steal_cost_details();
    measures.steal_cost_batches = cost.batches;
    measures.steal_cost_agreement = cost.agreement;
    measures.steal_cost_spread = cost.spread;
    if (!cost.warning.empty()) {
      measures.warnings.push_back(cost.warning);
    }
  }
  measures.units = m->options.unit_strands;
  measures.workers = m->worker.worker_count();
  measures.runs = m->options.repeats > 1 ? m->runs - m->differing_runs : 1;
  if (m->differing_runs != 0) {
    measures.problems.push_back(std::to_string(m->differing_runs) + " of the " +
                                std::to_string(m->runs) +
                                " runs had another graph than the first and were not used");
  }
  return analysis(std::move(measures));
}

namespace detail {

namespace {

/// The steal cost's measurement: a root that forks a child which waits until the parent's
/// continuation runs, which only the other worker can make happen (by stealing it); each round
/// is a fork, a steal, the child's return and the join, timed from the fork to after the join:
/// what a stolen fork adds to the chain it is on, when both workers run.
struct steal_probe {
  std::atomic<bool> resumed{false};
  std::vector<std::uint64_t> rounds;
};

task<> probe_child(steal_probe* p) {
  // acquire: pairs with the continuation's release store (nothing else to see; a plain flag).
  for (unsigned spins = 1; !p->resumed.load(std::memory_order_acquire); ++spins) {
    if (spins % (1U << 20) == 0) {
      // About a millisecond without a steal: the thief's thread is not running (a busy or a
      // one-core machine). Let it; not sooner, which would break the moments both run.
      std::this_thread::yield();
    }
  }
  co_return;
}

/// A batch's figure: the median of its fastest rounds, at most this many.
constexpr std::size_t fastest = 21;

/// A batch's rounds: 400 whatever they take, and up to 4,000 while the first 50 ms last (on an
/// idle machine a round takes microseconds); but none begun after 400 ms (on a busy machine a
/// round can take a scheduler's time slice: the next batch may find the threads running).
task<> probe_root(steal_probe* p) {
  using clock = std::chrono::steady_clock;
  const auto start = clock::now();
  for (int i = 0;; ++i) {
    const auto now = clock::now();
    if (i >= 4000 || (i >= 400 && now - start >= std::chrono::milliseconds(50)) ||
        (i >= 1 && now - start >= std::chrono::milliseconds(400))) {
      break;
    }
    p->resumed.store(false, std::memory_order_relaxed);
    const std::uint64_t t0 = ticks();
    co_await fork(probe_child, p);
    p->resumed.store(true, std::memory_order_release);  // runs on the thief
    co_await join();
    p->rounds.push_back(ticks() - t0);
  }
}

struct probe_scheduler {
  void schedule(submit_node*) {}
};

struct batch {
  double seconds;  ///< the median of the batch's fastest rounds
  std::size_t rounds;
};

batch measure_batch() {
  steal_probe probe;
  probe.rounds.reserve(4000);
  worker_context a(64, owner_fence::full);
  worker_context b(64, owner_fence::full);
  steal_probe* const target = &probe;
  // Arguments by reference, as sync_wait passes them: these locals outlive the job.
  root_job<void, task<> (&)(steal_probe*), steal_probe* const&> job(probe_root, target);
  static probe_scheduler none;
  job.context.scheduler.emplace(none);
  std::atomic<bool> finished{false};
  auto thief = [&finished](worker_context& self, worker_context& victim) {
    self.bind();
    // relaxed: only ends the loop; the root's completion is what the caller waits on.
    while (!finished.load(std::memory_order_relaxed)) {
      self.steal_from(self);
      self.steal_from(victim);
    }
    self.unbind();
  };
  std::thread tb(thief, std::ref(b), std::ref(a));
  std::thread ta([&] {
    a.bind();
    a.run_submitted(&job);
    // acquire side is the job's own wait below; relaxed here (see thief).
    while (!job.done()) {
      a.steal_from(a);
      a.steal_from(b);
    }
    a.unbind();
  });
  job.wait();
  finished.store(true, std::memory_order_relaxed);
  ta.join();
  tb.join();
  // The median of the fastest rounds: rounds whose two threads were both running. The others
  // show the machine's load, not a steal, and on a machine busy with other work most rounds are
  // such; the single fastest would be luck (every cache line where it had to be).
  std::vector<std::uint64_t> r = probe.rounds;
  std::sort(r.begin(), r.end());
  const std::size_t k = std::min(fastest, r.size());
  return {static_cast<double>(r[k / 2]) * seconds_per_tick(), r.size()};
}

/// A figure no steal between two running threads of one machine reaches (a cross-socket steal
/// costs microseconds); above it, the rounds timed the machine's load.
constexpr double implausible_steal_seconds = 100e-6;

std::string microseconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g us", s * 1e6);
  return buf;
}

}  // namespace

steal_cost_measurement measure_steal_cost_now() {
  // Batches until two agree within 1.5x: three at least (one can be slowed by a burst of other
  // work), ten or two seconds at most.
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  constexpr double agreeing = 1.5;
  std::vector<double> figures;
  steal_cost_measurement m;
  auto agree = [&figures] {
    std::vector<double> f = figures;
    std::sort(f.begin(), f.end());
    return f.size() >= 2 && f[1] <= agreeing * f[0];
  };
  do {
    const batch b = measure_batch();
    figures.push_back(b.seconds);
    m.rounds += b.rounds;
  } while (figures.size() < 10 && (figures.size() < 3 || !agree()) &&
           std::chrono::steady_clock::now() < until);
  std::sort(figures.begin(), figures.end());
  m.seconds = figures.front();
  m.agreement =
      figures.size() >= 2 ? figures[1] / figures[0] : std::numeric_limits<double>::infinity();
  m.spread = figures.back() / figures.front();
  m.batches = static_cast<int>(figures.size());
  if (!agree()) {
    m.warning = "the steal cost could not be measured reliably: its " + std::to_string(m.batches) +
                " batches gave " + microseconds(figures.front()) + " to " +
                microseconds(figures.back()) +
                ", the two lowest more than 1.5x apart (the machine is busy); the prediction "
                "uses " +
                microseconds(m.seconds) + ": give analysis_options::steal_cost instead";
  } else if (m.seconds > implausible_steal_seconds) {
    m.warning = "the measured steal cost, " + microseconds(m.seconds) +
                ", is far above what a steal costs: the two threads of the measurement seldom "
                "ran at once (the machine is busy); give analysis_options::steal_cost instead";
  }
  return m;
}

}  // namespace detail

const steal_cost_measurement& measure_steal_cost_details() {
  static const steal_cost_measurement m = detail::measure_steal_cost_now();
  return m;
}

double measure_steal_cost() { return measure_steal_cost_details().seconds; }

}  // namespace tine
