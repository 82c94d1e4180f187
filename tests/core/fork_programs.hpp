#ifndef TINE_TESTS_CORE_FORK_PROGRAMS_HPP
#define TINE_TESTS_CORE_FORK_PROGRAMS_HPP

// Seeded random fork-join programs with exceptions (forks, calls into subtrees that fork, joins,
// throws and handlers at random nodes), a task that runs one and logs what happened, a serial
// model of the documented rule (a fork after the scope's stored exception starts no child), and
// the two checks: a one-worker run against the model, node for node; a run on more workers
// against what it shows itself (tests/core/skipped_forks_test.cpp says what each checks).

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <tine/core/core.hpp>

namespace tine_tests::fork_programs {

// One operation of a node's body, in program order.
struct op {
  enum kind : std::uint8_t { fork, call, join, raise };
  kind k = join;
  int child = -1;  // fork, call: the node started
};

struct program {
  struct node {
    std::vector<op> ops;   // never left inside a scope: a join follows the last fork or call
    bool catches = false;  // its body is a try block whose handler catches a node_error
    int spin = 0;          // iterations of busy work after each operation
  };
  std::vector<node> nodes;
};

struct node_error : std::runtime_error {
  explicit node_error(int origin)
      : std::runtime_error("node " + std::to_string(origin)), id(origin) {}
  int id;
};

// About `size` nodes, each with up to 7 operations. A raise is placed only where no scope is
// open (a task may not leave a scope by its own exception while children may run: the tour's
// rules), so exceptions come out of joins, out of calls made outside a scope, and out of raises.
inline program make_program(std::uint64_t seed, std::size_t size, double raise_probability,
                            double spin_probability) {
  std::mt19937_64 rng(seed);
  program p;
  p.nodes.emplace_back();
  std::bernoulli_distribution catches(0.3), spins(spin_probability), raises(raise_probability);
  for (std::size_t next = 0; next < p.nodes.size(); ++next) {
    const int ops = static_cast<int>(rng() % 8);
    bool in_scope = false;
    std::vector<op> body;
    const bool raiser = raises(rng);
    const int raise_at =
        raiser ? static_cast<int>(rng() % static_cast<std::uint64_t>(ops + 1)) : -1;
    for (int i = 0; i <= ops; ++i) {
      if (i == raise_at) {
        if (in_scope) {
          body.push_back({op::join, -1});
          in_scope = false;
        }
        body.push_back({op::raise, -1});
      }
      if (i == ops) {
        break;
      }
      const auto r = rng() % 10;
      if (r < 6 && p.nodes.size() < size) {  // a child: forked, or called (with calls rarer)
        const op::kind k = r < 4 ? op::fork : op::call;
        body.push_back({k, static_cast<int>(p.nodes.size())});
        p.nodes.emplace_back();
        in_scope = in_scope || k == op::fork;
      } else if (r < 8 && in_scope) {
        body.push_back({op::join, -1});
        in_scope = false;
      }
    }
    if (in_scope) {
      body.push_back({op::join, -1});
    }
    program::node& n = p.nodes[next];  // (after the emplace_backs above)
    n.ops = std::move(body);
    n.catches = catches(rng);
    n.spin = spins(rng) ? static_cast<int>(rng() % 20000) : 0;
  }
  return p;
}

inline void spin_for(int iterations) {
  for (int i = 0; i < iterations; ++i) {
    asm volatile("" ::: "memory");  // a loop the optimiser keeps
  }
}

// What a run shows. Each node's record is written by that node's own strands only, in program
// order (which the runtime orders across workers); read after sync_wait returned.
struct run_log {
  struct point {
    std::uint64_t seq = 0;
    std::thread::id thread;
  };
  struct node_record {
    bool started = false;
    point start;
    std::vector<point> resumed;  // after the fork or call of op i returned to the node
    std::optional<int> escaped;  // the exception that left the node's body
    point escape;
    std::optional<int> caught;  // what its handler caught
    bool finished = false;
    std::uint64_t result = 0;
  };

  explicit run_log(std::size_t n) : nodes(n) {}

  point here() {
    // relaxed: a total order of the points (one atomic's modification order), enough to tell
    // whether an exception left a child before its parent went on.
    return {seq.fetch_add(1, std::memory_order_relaxed), std::this_thread::get_id()};
  }

  std::vector<node_record> nodes;
  std::atomic<std::uint64_t> seq{0};
};

inline std::uint64_t mix(std::uint64_t value, std::uint64_t child) {
  return value * 1000003 + child;
}

inline tine::task<std::uint64_t> run_node(const program* p, int id, run_log* log) {
  const program::node& n = p->nodes[static_cast<std::size_t>(id)];
  run_log::node_record& me = log->nodes[static_cast<std::size_t>(id)];
  me.started = true;
  me.start = log->here();
  me.resumed.resize(n.ops.size());
  std::vector<std::uint64_t> results(n.ops.size(), 0);  // each child its own slot
  try {
    for (std::size_t i = 0; i < n.ops.size(); ++i) {
      const op& o = n.ops[i];
      switch (o.k) {
        case op::fork:
          co_await tine::fork(&results[i], run_node, p, o.child, log);
          me.resumed[i] = log->here();
          break;
        case op::call:
          co_await tine::call(&results[i], run_node, p, o.child, log);
          me.resumed[i] = log->here();
          break;
        case op::join:
          co_await tine::join();
          break;
        case op::raise:
          throw node_error(id);
      }
      spin_for(n.spin);
    }
  } catch (const node_error& e) {
    if (!n.catches) {
      me.escaped = e.id;
      me.escape = log->here();
      throw;
    }
    me.caught = e.id;
  }
  std::uint64_t value = static_cast<std::uint64_t>(id) + 1;
  for (const std::uint64_t r : results) {
    value = mix(value, r);  // 0 for a child that wrote nothing
  }
  me.finished = true;
  me.result = value;
  co_return value;
}

// The serial program under the documented rule: a fork after the scope's stored exception starts
// nothing; a call always starts its child, and inside a scope its exception waits for the join
// like a forked child's; the first exception stored comes out of the join.
struct model {
  explicit model(std::size_t n) : nodes(n) {}

  struct node_record {
    bool started = false;
    std::optional<int> escaped;
    std::optional<int> caught;
    bool finished = false;
    std::uint64_t result = 0;
  };

  // The exception that escapes node `id`, if one does.
  std::optional<int> run(const program& p, int id) {
    const program::node& n = p.nodes[static_cast<std::size_t>(id)];
    node_record& me = nodes[static_cast<std::size_t>(id)];
    me.started = true;
    order.push_back(id);
    std::vector<std::uint64_t> results(n.ops.size(), 0);
    std::optional<int> stored;
    std::optional<int> thrown;
    bool in_scope = false;
    for (std::size_t i = 0; i < n.ops.size() && !thrown; ++i) {
      const op& o = n.ops[i];
      switch (o.k) {
        case op::fork: {
          in_scope = true;
          if (stored) {
            break;  // skipped
          }
          if (std::optional<int> e = run(p, o.child)) {
            stored = e;
          } else {
            results[i] = nodes[static_cast<std::size_t>(o.child)].result;
          }
          break;
        }
        case op::call: {
          if (std::optional<int> e = run(p, o.child)) {
            if (in_scope) {
              stored = stored ? stored : e;
            } else {
              thrown = e;  // outside a scope a call is a function call
            }
          } else {
            results[i] = nodes[static_cast<std::size_t>(o.child)].result;
          }
          break;
        }
        case op::join:
          in_scope = false;
          thrown = std::exchange(stored, std::nullopt);
          break;
        case op::raise:
          thrown = id;
          break;
      }
    }
    if (thrown) {
      if (!n.catches) {
        me.escaped = thrown;
        return thrown;
      }
      me.caught = thrown;
    }
    std::uint64_t value = static_cast<std::uint64_t>(id) + 1;
    for (const std::uint64_t r : results) {
      value = mix(value, r);
    }
    me.finished = true;
    me.result = value;
    return std::nullopt;
  }

  std::vector<node_record> nodes;
  std::vector<int> order;  // the nodes in the order they started
};

// Collects what a check found wrong, with the program's seed, and keeps the first few texts.
struct findings {
  std::size_t count = 0;
  std::vector<std::string> first;
  // What the runs exercised (more workers): forks skipped after a local throw, exceptions that
  // reached their task from another worker, forks whose task went on on another worker.
  std::size_t skipped_after_local = 0;
  std::size_t remote_throws = 0;
  std::size_t stolen_forks = 0;

  void add(std::uint64_t seed, int node, const std::string& what) {
    ++count;
    if (first.size() < 8) {
      first.push_back("seed " + std::to_string(seed) + ", node " + std::to_string(node) + ": " +
                      what);
    }
  }

  std::string text() const {
    std::ostringstream o;
    o << count << " violations";
    for (const std::string& s : first) {
      o << "\n  " << s;
    }
    return o.str();
  }
};

inline std::string opt_text(const std::optional<int>& e) {
  return e ? "exception of node " + std::to_string(*e) : "none";
}

// One worker: the run is the model's, node for node.
inline void compare_with_model(const program& p, const run_log& log, std::optional<int> root_error,
                               std::uint64_t seed, findings& f) {
  model m(p.nodes.size());
  const std::optional<int> expected = m.run(p, 0);
  if (root_error != expected) {
    f.add(seed, 0,
          "the root ended with " + opt_text(root_error) + ", the model with " + opt_text(expected));
  }
  std::vector<std::pair<std::uint64_t, int>> starts;
  for (std::size_t i = 0; i < p.nodes.size(); ++i) {
    const run_log::node_record& r = log.nodes[i];
    const model::node_record& x = m.nodes[i];
    const int id = static_cast<int>(i);
    if (r.started != x.started) {
      f.add(
          seed, id,
          x.started ? "did not start (the model starts it)" : "started (the model skips its fork)");
      continue;
    }
    if (!r.started) {
      continue;
    }
    starts.emplace_back(r.start.seq, id);
    if (r.escaped != x.escaped) {
      f.add(seed, id, "escaped: " + opt_text(r.escaped) + ", model: " + opt_text(x.escaped));
    }
    if (r.caught != x.caught) {
      f.add(seed, id, "caught: " + opt_text(r.caught) + ", model: " + opt_text(x.caught));
    }
    if (r.finished != x.finished || (r.finished && r.result != x.result)) {
      f.add(seed, id, "result differs from the model's");
    }
  }
  std::sort(starts.begin(), starts.end());
  std::vector<int> order;
  for (const auto& s : starts) {
    order.push_back(s.second);
  }
  if (order != m.order && f.count == 0) {
    f.add(seed, 0, "the nodes started in another order than the serial program's");
  }
}

// More workers: walks node `id` in program order with what the run shows. Returns the exception
// that escaped it (as the log says, after checking that it is one the node could throw).
inline std::optional<int> check_as_run(const program& p, const run_log& log, int id,
                                       std::uint64_t seed, findings& f) {
  const program::node& n = p.nodes[static_cast<std::size_t>(id)];
  const run_log::node_record& me = log.nodes[static_cast<std::size_t>(id)];
  std::vector<int> candidates;  // exceptions stored in the open scope, as they escaped children
  bool local = false;           // one of them reached this task where it went on: a local throw
  bool in_scope = false;
  std::optional<std::vector<int>> thrown;  // what may leave the try block
  std::uint64_t value = static_cast<std::uint64_t>(id) + 1;
  std::vector<std::uint64_t> results(n.ops.size(), 0);
  for (std::size_t i = 0; i < n.ops.size() && !thrown; ++i) {
    const op& o = n.ops[i];
    const run_log::node_record* child =
        o.child >= 0 ? &log.nodes[static_cast<std::size_t>(o.child)] : nullptr;
    switch (o.k) {
      case op::fork:
      case op::call: {
        in_scope = in_scope || o.k == op::fork;
        if (!child->started) {
          if (local) {
            ++f.skipped_after_local;
          }
          if (o.k == op::call) {
            f.add(seed, id, "a call started nothing (op " + std::to_string(i) + ")");
          } else if (candidates.empty()) {
            f.add(seed, id,
                  "a fork started nothing though no sibling had thrown (op " + std::to_string(i) +
                      ")");
          }
          break;
        }
        if (o.k == op::fork && local) {
          f.add(seed, id,
                "a fork started its child after a local throw (op " + std::to_string(i) + ")");
        }
        const std::optional<int> e = check_as_run(p, log, o.child, seed, f);
        const run_log::point& back = me.resumed[i];
        if (o.k == op::fork && back.thread != child->start.thread) {
          ++f.stolen_forks;
        }
        if (!e) {
          results[i] = child->result;
          break;
        }
        if (o.k == op::call && !in_scope) {
          thrown = std::vector<int>{*e};
          break;
        }
        candidates.push_back(*e);
        if (child->escape.thread == back.thread && child->escape.seq < back.seq) {
          local = true;
        } else {
          ++f.remote_throws;
        }
        break;
      }
      case op::join:
        in_scope = false;
        if (!candidates.empty()) {
          thrown = candidates;
        }
        candidates.clear();
        local = false;
        break;
      case op::raise:
        thrown = std::vector<int>{id};
        break;
    }
  }
  auto one_of = [](const std::vector<int>& v, const std::optional<int>& e) {
    return e && std::find(v.begin(), v.end(), *e) != v.end();
  };
  if (thrown && !n.catches) {
    if (!one_of(*thrown, me.escaped) || me.finished) {
      f.add(seed, id, "escaped " + opt_text(me.escaped) + ", not an exception of its scope");
    }
    return me.escaped;
  }
  if (thrown && !one_of(*thrown, me.caught)) {
    f.add(seed, id, "caught " + opt_text(me.caught) + ", not an exception of its scope");
  }
  if (!thrown && (me.caught || me.escaped)) {
    f.add(seed, id, "caught or escaped an exception where none was stored");
  }
  for (const std::uint64_t r : results) {
    value = mix(value, r);
  }
  if (!me.finished || me.result != value) {
    f.add(seed, id, "its result is not what its children returned");
  }
  return std::nullopt;
}

template <typename Scheduler>
findings run_programs(Scheduler& sched, bool one_worker, std::uint64_t first_seed, int programs,
                      std::size_t size) {
  findings f;
  for (int k = 0; k < programs; ++k) {
    const std::uint64_t seed = first_seed + static_cast<std::uint64_t>(k);
    // With more workers, more nodes spin, so that thieves find continuations to take.
    const program p = make_program(seed, size, 0.12, one_worker ? 0.05 : 0.4);
    run_log log(p.nodes.size());
    std::optional<int> root_error;
    try {
      (void)tine::sync_wait(sched, run_node, &p, 0, &log);
    } catch (const node_error& e) {
      root_error = e.id;
    }
    if (one_worker) {
      compare_with_model(p, log, root_error, seed, f);
    } else {
      const std::optional<int> e = check_as_run(p, log, 0, seed, f);
      if (e != root_error) {
        f.add(seed, 0,
              "the root ended with " + opt_text(root_error) + ", its body threw " + opt_text(e));
      }
    }
  }
  return f;
}

}  // namespace tine_tests::fork_programs

#endif  // TINE_TESTS_CORE_FORK_PROGRAMS_HPP
