#ifndef TINE_ALGORITHMS_EXTENSION_HPP
#define TINE_ALGORITHMS_EXTENSION_HPP

/// \file extension.hpp
/// The seam for layers that run tine's algorithms over ranges of their own (the distributed
/// pool's algorithms over global spans, std::execution's bulk): the algorithms' machinery such a
/// layer builds on, in one header, so that nothing outside `algorithms/` includes its `detail/`
/// files. Not for applications: the names stay in `tine::detail` and may change between minor
/// versions, together with the layers in this repository that use them.
///
/// - `split_for`, `split_fold`, `block_start` (detail/split.hpp): recursive halving over an index
///   range, with or without combining the pieces' results, and the blocks of a range;
///   `run_outside_frame` calls a plain piece where the compiler optimises it as a loop.
/// - `task_body`, `body_value_t`, `check_task_value` (detail/body.hpp): callables that may be
///   tasks, and the one-sentence check of a task's value.
/// - `param<T>`, `arg(p)` (detail/coroutine_param.hpp): how an algorithm coroutine takes a
///   caller's type by value safely under every supported compiler.
/// - The algorithms' `*_impl` coroutines and entry checks come with their public headers
///   (<tine/algorithms/algorithms.hpp>).

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <tine/algorithms/detail/body.hpp>
#include <tine/algorithms/detail/coroutine_param.hpp>
#include <tine/algorithms/detail/split.hpp>

#endif  // TINE_ALGORITHMS_EXTENSION_HPP
