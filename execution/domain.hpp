#ifndef TINE_EXECUTION_DOMAIN_HPP
#define TINE_EXECUTION_DOMAIN_HPP

/// \file domain.hpp
/// The domain of tine's P2300 schedulers: the standard algorithms keep their default meaning,
/// except `bulk`, `bulk_chunked` and `bulk_unchunked` whose predecessor completes on a tine
/// scheduler, which run as tine's parallel loop (bulk.hpp).

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <type_traits>
#include <utility>

#include <exec/sender_for.hpp>
#include <stdexec/execution.hpp>

#include <tine/core/concepts.hpp>
#include <tine/core/scheduler_ref.hpp>
#include <tine/execution/bulk.hpp>

namespace tine::execution {

template <typename S>
class scheduler;

namespace detail {

/// Whether `T` is a `tine::execution::scheduler<S>`.
template <typename T>
inline constexpr bool is_tine_p2300_scheduler = false;
template <typename S>
inline constexpr bool is_tine_p2300_scheduler<scheduler<S>> = true;

/// The execution policy a bulk sender's data was given (the data is `{policy, shape, fun}`).
template <typename Data>
struct bulk_policy;
template <template <typename, typename, typename> class D, typename P, typename S, typename F>
struct bulk_policy<D<P, S, F>> {
  using type = P;
};

/// `x` as an rvalue if `Sender` is one (C++23's std::forward_like, for a member of a sender).
template <typename Sender, typename X>
constexpr decltype(auto) like(X& x) noexcept {
  if constexpr (std::is_lvalue_reference_v<Sender>) {
    return static_cast<const X&>(x);
  } else {
    return static_cast<X&&>(x);
  }
}

/// Whether `Sender` (a bulk sender) completes on a tine scheduler in environment `Env`.
template <typename Sender, typename Env>
concept completes_on_tine =
    requires(const Sender& s, const Env& env) {
      stdexec::get_completion_scheduler<stdexec::set_value_t>(stdexec::get_env(s), env);
    } &&
    is_tine_p2300_scheduler<
        std::remove_cvref_t<decltype(stdexec::get_completion_scheduler<stdexec::set_value_t>(
            stdexec::get_env(std::declval<const Sender&>()), std::declval<const Env&>()))>>;

/// `bulk` is taken as it is, before stdexec lowers it to `bulk_chunked` with a per-index loop of
/// its own: tine's pieces then call the function once per index themselves, and a function that
/// returns a tine task has each of its tasks run (the lowered loop would drop them unrun).
struct domain : stdexec::default_domain {
  template <typename Sender, typename Env>
    requires(exec::sender_for<Sender, stdexec::bulk_t> ||
             exec::sender_for<Sender, stdexec::bulk_chunked_t> ||
             exec::sender_for<Sender, stdexec::bulk_unchunked_t>) &&
            completes_on_tine<Sender, Env>
  auto transform_sender(stdexec::set_value_t, Sender&& sndr, const Env& env) const {
    auto sch = stdexec::get_completion_scheduler<stdexec::set_value_t>(stdexec::get_env(sndr), env);
    auto& [tag, data, child] = sndr;
    auto& [policy, shape, fun] = data;
    using policy_type = typename bulk_policy<std::remove_cvref_t<decltype(data)>>::type;
    constexpr bool parallel = std::is_same_v<policy_type, stdexec::parallel_policy> ||
                              std::is_same_v<policy_type, stdexec::parallel_unsequenced_policy>;
    constexpr bool chunked = exec::sender_for<Sender, stdexec::bulk_chunked_t>;
    using child_type = std::remove_cvref_t<decltype(child)>;
    return bulk_sender<chunked, std::remove_cvref_t<decltype(shape)>,
                       std::remove_cvref_t<decltype(fun)>, child_type>(
        scheduler_ref(sch.tine_scheduler()), like<Sender>(child), shape, like<Sender>(fun),
        parallel);
  }
};

}  // namespace detail
}  // namespace tine::execution

#endif  // TINE_EXECUTION_DOMAIN_HPP
