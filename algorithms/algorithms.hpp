#ifndef TINE_ALGORITHMS_ALGORITHMS_HPP
#define TINE_ALGORITHMS_ALGORITHMS_HPP

/// \file algorithms.hpp
/// Every parallel algorithm. Each comes in two call styles:
/// - blocking, STL-shaped, scheduler first: `tine::reduce(pool, range, init, op)`, also over an
///   iterator pair; call it from a thread that is not a worker;
/// - a task form in `tine::async`, with the same arguments minus the scheduler, that composes
///   inside tasks without blocking a worker: `co_await tine::call(&sum, tine::async::reduce, range,
///   init, op)`.
/// Every call takes an optional last argument `tine::grain{n}` (see grain.hpp for the default).

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <tine/algorithms/compare.hpp>
#include <tine/algorithms/concepts.hpp>
#include <tine/algorithms/copy.hpp>
#include <tine/algorithms/count.hpp>
#include <tine/algorithms/extrema.hpp>
#include <tine/algorithms/fill.hpp>
#include <tine/algorithms/for_each.hpp>
#include <tine/algorithms/grain.hpp>
#include <tine/algorithms/invoke.hpp>
#include <tine/algorithms/map.hpp>
#include <tine/algorithms/merge.hpp>
#include <tine/algorithms/reduce.hpp>
#include <tine/algorithms/scan.hpp>
#include <tine/algorithms/search.hpp>
#include <tine/algorithms/sort.hpp>

#endif  // TINE_ALGORITHMS_ALGORITHMS_HPP
