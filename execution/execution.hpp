#ifndef TINE_EXECUTION_EXECUTION_HPP
#define TINE_EXECUTION_EXECUTION_HPP

/// \file execution.hpp
/// tine in the standard's async model (P2300, `std::execution`), on stdexec, its reference
/// implementation (an optional dependency: docs/build.md). docs/execution.md is the guide.
///
/// - `tine::execution::scheduler(s)`: any tine scheduler as a P2300 scheduler (scheduler.hpp);
///   `bulk` on it runs as tine's parallel loop (bulk.hpp, domain.hpp).
/// - `tine::execution::as_sender(s, fn, args...)`: a tine task as a sender (as_sender.hpp).
/// - `co_await sender` inside a tine task (await_sender.hpp).

#include <tine/execution/as_sender.hpp>
#include <tine/execution/await_sender.hpp>
#include <tine/execution/bulk.hpp>
#include <tine/execution/domain.hpp>
#include <tine/execution/scheduler.hpp>

#endif  // TINE_EXECUTION_EXECUTION_HPP
