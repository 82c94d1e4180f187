#ifndef TINE_SCHEDULERS_TRACE_OBSERVER_HPP
#define TINE_SCHEDULERS_TRACE_OBSERVER_HPP

/// \file trace_observer.hpp
/// `tine::trace_observer`: a pool observer that records every worker's events with timestamps
/// and writes them in the Chrome trace event format, which Perfetto (ui.perfetto.dev) and
/// chrome://tracing open. The format, exactly, is in docs/observability.md.
///
/// ```
/// tine::trace_observer trace(1 << 20);  // at most 2^20 events per worker
/// {
///   tine::lazy_pool pool(2, trace);
///   tine::sync_wait(pool, fib, 30);
/// }
/// trace.write_chrome_trace("trace.json");
/// ```
///
/// Recording: each worker appends fixed-size records to a buffer of its own, preallocated when
/// the pool attaches (no lock, no allocation, one steady_clock read per event). Steal attempts
/// are not recorded (an idle busy_pool makes millions): the time between work is the "stealing"
/// state. Overflow policy: when a worker's buffer is full, that worker stops recording; the
/// events it could not keep are counted (`dropped_events()`, and `otherData.dropped_events` in
/// the trace), and its state spans end where recording stopped (the rest of its time is
/// "unknown" in the viewer). Read or write the trace only after the pool has been destroyed (its
/// destructor joins the workers, which orders their writes before the read).

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <charconv>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <fstream>
#include <memory>
#include <ostream>
#include <stdexcept>
#include <string>

#include <tine/core/version.hpp>
#include <tine/schedulers/pool_observer.hpp>

namespace tine {

class trace_observer {
 public:
  using clock = std::chrono::steady_clock;

  /// Records at most `events_per_worker` events per worker (24 bytes each, allocated when a
  /// pool attaches). Throws std::invalid_argument if it is below 2 (one event and the mark
  /// where recording stopped).
  explicit trace_observer(std::size_t events_per_worker = std::size_t{1} << 16)
      : m_capacity(events_per_worker) {
    if (events_per_worker < 2) {
      throw std::invalid_argument(
          "tine::trace_observer: events_per_worker must be at least 2, got " +
          std::to_string(events_per_worker));
    }
  }

  trace_observer(const trace_observer&) = delete;
  trace_observer& operator=(const trace_observer&) = delete;

  /// The number of workers of the pool last attached.
  std::size_t workers() const noexcept { return m_workers; }

  /// The capacity per worker given to the constructor.
  std::size_t events_per_worker() const noexcept { return m_capacity; }

  /// Events recorded so far, all workers (the mark of a full buffer not counted).
  std::size_t recorded_events() const noexcept {
    std::size_t n = 0;
    for (std::size_t w = 0; w < m_workers; ++w) {
      n += m_lanes[w].size - (m_lanes[w].full ? 1 : 0);
    }
    return n;
  }

  /// Events lost to full buffers, all workers.
  std::uint64_t dropped_events() const noexcept {
    std::uint64_t n = 0;
    for (std::size_t w = 0; w < m_workers; ++w) {
      n += m_lanes[w].dropped;
    }
    return n;
  }

  /// Writes the trace as JSON (see docs/observability.md). Only after the pool is destroyed.
  void write_chrome_trace(std::ostream& out) const;

  /// Writes the trace to the file `path`; throws std::runtime_error naming the path if it cannot
  /// be written.
  void write_chrome_trace(const std::string& path) const {
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    if (f) {
      write_chrome_trace(f);
      f.flush();
    }
    if (!f) {
      throw std::runtime_error("tine::trace_observer: cannot write the trace to '" + path + "'");
    }
  }

  // ---- pool_observer hooks (called by the pool, each on worker w's thread) ----
  /// Allocates the buffers (throws std::bad_alloc) and starts the clock; drops what an earlier
  /// pool left.
  void attach(std::size_t n) {
    m_lanes = std::make_unique<lane[]>(n);
    for (std::size_t w = 0; w < n; ++w) {
      m_lanes[w].records = std::make_unique<record[]>(m_capacity);
    }
    m_workers = n;
    m_start = clock::now();
  }
  void on_worker_start(std::size_t w) noexcept { add(w, kind::start, 0); }
  void on_worker_stop(std::size_t w) noexcept { add(w, kind::stop, 0); }
  void on_steal_attempt(std::size_t, std::size_t) noexcept {}
  void on_steal(std::size_t w, std::size_t victim) noexcept { add(w, kind::steal, victim); }
  void on_submission(std::size_t w) noexcept { add(w, kind::submission, 0); }
  void on_work_done(std::size_t w) noexcept { add(w, kind::work_done, 0); }
  void on_sleep(std::size_t w) noexcept { add(w, kind::sleep, 0); }
  void on_wake(std::size_t w) noexcept { add(w, kind::wake, 0); }
  void on_join_suspend(std::size_t w) noexcept { add(w, kind::join_suspend, 0); }
  void on_join_resume(std::size_t w) noexcept { add(w, kind::join_resume, 0); }
  void on_stacklet_alloc(std::size_t w, std::size_t bytes) noexcept {
    add(w, kind::stacklet_alloc, bytes);
  }
  void on_stacklet_free(std::size_t w, std::size_t bytes) noexcept {
    add(w, kind::stacklet_free, bytes);
  }

 private:
  enum class kind : std::uint32_t {
    start,
    stop,
    steal,
    submission,
    work_done,
    sleep,
    wake,
    join_suspend,
    join_resume,
    stacklet_alloc,
    stacklet_free,
    truncated,  // the buffer filled up here; nothing after it was kept
  };

  struct record {
    std::uint64_t ns;  // since m_start
    std::uint64_t arg;
    kind what;
  };

  struct alignas(64) lane {
    std::unique_ptr<record[]> records;
    std::size_t size = 0;
    std::uint64_t dropped = 0;
    bool full = false;
  };

  void add(std::size_t w, kind what, std::size_t arg) noexcept {
    lane& l = m_lanes[w];
    if (l.full) {
      ++l.dropped;
      return;
    }
    const auto ns = static_cast<std::uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(clock::now() - m_start).count());
    if (l.size + 1 == m_capacity) {
      // The last slot marks where recording stopped, so the writer ends the open state there.
      l.records[l.size++] = record{ns, 0, kind::truncated};
      l.full = true;
      ++l.dropped;
      return;
    }
    l.records[l.size++] = record{ns, arg, what};
  }

  class writer;

  std::size_t m_capacity;
  std::size_t m_workers = 0;
  std::unique_ptr<lane[]> m_lanes;
  clock::time_point m_start{};
};

static_assert(pool_observer<trace_observer>);

// ---- the JSON writer --------------------------------------------------------------------------

/// Replays each worker's records into Chrome trace events. Numbers are formatted by hand, so
/// the output does not depend on the stream's locale.
class trace_observer::writer {
 public:
  explicit writer(std::ostream& out) : m_out(out) {}

  void run(const trace_observer& t) {
    // Time 0 is the first recorded event, not attach(): a pool attaches its observer before it
    // discovers the topology and starts its threads, milliseconds a viewer would show as empty.
    bool any = false;
    for (std::size_t w = 0; w < t.m_workers; ++w) {
      const lane& l = t.m_lanes[w];
      if (l.size != 0 && (!any || l.records[0].ns < m_origin)) {
        m_origin = l.records[0].ns;  // a lane's records are in clock order
        any = true;
      }
    }
    m_out << "{\"traceEvents\":[\n";
    for (std::size_t w = 0; w < t.m_workers; ++w) {
      begin_event();
      m_out << R"({"ph":"M","name":"thread_name","pid":1,"tid":)" << dec{w}
            << R"(,"args":{"name":"worker )" << dec{w} << "\"}}";
    }
    for (std::size_t w = 0; w < t.m_workers; ++w) {
      replay(w, t.m_lanes[w]);
    }
    m_out << "\n],\"displayTimeUnit\":\"ns\",\"otherData\":{\"producer\":\"tine\","
          << "\"tine_version\":\"" << TINE_VERSION_STRING << "\",\"workers\":" << dec{t.m_workers}
          << ",\"dropped_events\":" << dec{t.dropped_events()}
          << ",\"clock\":\"steady_clock\",\"events_per_worker\":" << dec{t.m_capacity} << "}}\n";
  }

 private:
  enum class state { unknown, busy, stealing, asleep };

  /// An integer in plain decimal digits, whatever the stream's locale.
  struct dec {
    std::uint64_t v;
    friend std::ostream& operator<<(std::ostream& o, dec d) {
      char buf[24];
      const std::to_chars_result r = std::to_chars(buf, buf + sizeof buf, d.v);
      return o.write(buf, r.ptr - buf);
    }
  };

  void replay(std::size_t w, const lane& l) {
    state now = state::unknown;
    std::uint64_t since = 0;
    const auto enter = [&](std::uint64_t ns, state next) {
      if (now != state::unknown && ns >= since) {
        span(w, now, since, ns - since);
      }
      now = next;
      since = ns;
    };
    std::uint64_t last = 0;
    for (std::size_t i = 0; i < l.size; ++i) {
      const record& r = l.records[i];
      last = r.ns;
      switch (r.what) {
        case kind::start:
          enter(r.ns, state::stealing);
          break;
        case kind::stop:
        case kind::truncated:
          enter(r.ns, state::unknown);
          break;
        case kind::steal:
          enter(r.ns, state::busy);
          steal(w, r.arg, r.ns);
          break;
        case kind::submission:
          enter(r.ns, state::busy);
          instant(w, "submission", r.ns);
          m_out << '}';
          break;
        case kind::work_done:
          enter(r.ns, state::stealing);
          break;
        case kind::sleep:
          enter(r.ns, state::asleep);
          break;
        case kind::wake:
          enter(r.ns, state::stealing);
          instant(w, "wake", r.ns);
          m_out << '}';
          break;
        case kind::join_suspend:
          instant(w, "join_suspend", r.ns);
          m_out << '}';
          break;
        case kind::join_resume:
          instant(w, "join_resume", r.ns);
          m_out << '}';
          break;
        case kind::stacklet_alloc:
        case kind::stacklet_free:
          instant(w, r.what == kind::stacklet_alloc ? "stacklet_alloc" : "stacklet_free", r.ns);
          m_out << ",\"args\":{\"bytes\":" << dec{r.arg} << "}}";
          break;
      }
    }
    enter(last, state::unknown);  // a state still open (written while running): end it there
  }

  void begin_event() {
    m_out << (m_first ? "" : ",\n");
    m_first = false;
  }

  void span(std::size_t w, state s, std::uint64_t ns, std::uint64_t dur) {
    static constexpr const char* names[] = {"unknown", "busy", "stealing", "asleep"};
    begin_event();
    m_out << R"({"ph":"X","cat":"state","name":")" << names[static_cast<int>(s)]
          << R"(","pid":1,"tid":)" << dec{w} << ",\"ts\":";
    at(ns);
    m_out << ",\"dur\":";
    micros(dur);
    m_out << '}';
  }

  /// Opens an instant of category "event"; the caller closes it (with or without args).
  void instant(std::size_t w, const char* name, std::uint64_t ns) {
    begin_event();
    m_out << R"({"ph":"i","cat":"event","s":"t","name":")" << name << R"(","pid":1,"tid":)"
          << dec{w} << ",\"ts\":";
    at(ns);
  }

  void steal(std::size_t thief, std::uint64_t victim, std::uint64_t ns) {
    const std::uint64_t id = ++m_flows;
    begin_event();
    m_out << R"({"ph":"i","cat":"steal","name":"steal","s":"t","pid":1,"tid":)" << dec{thief}
          << ",\"ts\":";
    at(ns);
    m_out << ",\"args\":{\"victim\":" << dec{victim} << "}}";
    begin_event();
    m_out << R"({"ph":"s","cat":"steal","name":"steal","id":)" << dec{id} << R"(,"pid":1,"tid":)"
          << dec{victim} << ",\"ts\":";
    at(ns);
    m_out << '}';
    begin_event();
    m_out << R"({"ph":"f","cat":"steal","name":"steal","id":)" << id
          << R"(,"bp":"e","pid":1,"tid":)" << thief << ",\"ts\":";
    at(ns);
    m_out << '}';
  }

  /// Nanoseconds as microseconds with three decimals ("12.345").
  /// A point in time: microseconds since the earliest record.
  void at(std::uint64_t ns) { micros(ns - m_origin); }

  void micros(std::uint64_t ns) {
    char frac[4] = {static_cast<char>('0' + ns / 100 % 10), static_cast<char>('0' + ns / 10 % 10),
                    static_cast<char>('0' + ns % 10), '\0'};
    m_out << dec{ns / 1000} << '.' << frac;
  }

  std::ostream& m_out;
  bool m_first = true;
  std::uint64_t m_flows = 0;
  std::uint64_t m_origin = 0;  // the earliest record's time: written as time 0
};

inline void trace_observer::write_chrome_trace(std::ostream& out) const { writer(out).run(*this); }

}  // namespace tine

#endif  // TINE_SCHEDULERS_TRACE_OBSERVER_HPP
