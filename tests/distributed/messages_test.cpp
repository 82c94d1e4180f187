// The distributed pool's messages (distributed/pool/messages.hpp): each decodes to what was
// encoded, field by field, including the edge cases a run meets (no result, several pieces, an
// exception with and without a description), and a message cut short ends the program with a
// message.
#include <tine/distributed/pool/messages.hpp>

#include <array>
#include <boost/test/unit_test.hpp>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "tests/core/death.hpp"

namespace {

using namespace tine::mpi::detail;

std::vector<std::byte> bytes_of(const std::string& s) {
  std::vector<std::byte> out;
  for (char c : s) {
    out.push_back(static_cast<std::byte>(c));
  }
  return out;
}

}  // namespace

BOOST_AUTO_TEST_CASE(an_arrival_with_result_pieces_and_exception_round_trips) {
  std::array<std::byte, 24> result_slot{};  // where the result goes, at the home
  const std::vector<std::byte> result = bytes_of("forty-two");
  std::vector<std::byte> first = bytes_of("frame bytes, first stacklet");
  std::vector<std::byte> second = bytes_of("second");
  const std::vector<range_piece> pieces = {{first.data(), first.size()},
                                           {second.data(), second.size()}};
  arrival_out out;
  out.frame = 0x7f00'1234'5678;
  out.strands = 3;
  out.result_at = result_slot.data();
  out.result = result;
  out.pieces = pieces;
  out.threw = true;
  out.exception = "std::runtime_error\nrank 2: it broke";

  const arrival_in in = decode_arrival(encode_arrival(out));
  BOOST_TEST(in.frame == out.frame);
  BOOST_TEST(in.strands == 3U);
  BOOST_REQUIRE(in.result.has_value());
  BOOST_TEST(in.result->at == result_slot.data());
  BOOST_TEST(in.result->bytes == result);
  BOOST_REQUIRE(in.pieces.size() == 2U);
  BOOST_TEST(in.pieces[0].at == first.data());
  BOOST_TEST(in.pieces[0].bytes == first);
  BOOST_TEST(in.pieces[1].at == second.data());
  BOOST_TEST(in.pieces[1].bytes == second);
  BOOST_TEST(in.threw);
  BOOST_TEST(in.exception == std::string(out.exception));
}

BOOST_AUTO_TEST_CASE(an_arrival_without_result_or_exception_round_trips) {
  arrival_out out;
  out.frame = 64;
  out.strands = 1;
  const std::vector<std::byte> ignored = bytes_of("not sent: no place to write it");
  out.result = ignored;  // result_at is null: the bytes stay behind
  const std::vector<std::byte> wire = encode_arrival(out);
  const arrival_in in = decode_arrival(wire);
  BOOST_TEST(in.frame == 64U);
  BOOST_TEST(in.strands == 1U);
  BOOST_TEST(!in.result.has_value());
  BOOST_TEST(in.pieces.empty());
  BOOST_TEST(!in.threw);
  BOOST_TEST(in.exception.empty());
  // Header only: nothing else travels.
  BOOST_TEST(wire.size() < ignored.size() + 48U);
}

BOOST_AUTO_TEST_CASE(an_exception_the_sender_could_not_describe_still_arrives) {
  arrival_out out;
  out.frame = 128;
  out.threw = true;  // no description: the home rebuilds std::bad_alloc
  const arrival_in in = decode_arrival(encode_arrival(out));
  BOOST_TEST(in.threw);
  BOOST_TEST(in.exception.empty());
}

BOOST_AUTO_TEST_CASE(a_release_round_trips) {
  const release_message r{0xdead'beef'0000'0001, 17};
  const release_message back = decode_release(encode_release(r));
  BOOST_TEST(back.token == r.token);
  BOOST_TEST(back.generation == 17U);
}

BOOST_AUTO_TEST_CASE(an_outcome_round_trips_with_and_without_a_value) {
  const double value = 2.5;
  std::vector<std::byte> wire(outcome_size(sizeof value));
  encode_outcome(wire, {1, 40}, {reinterpret_cast<const std::byte*>(&value), sizeof value});
  double received = 0;
  const outcome_header head =
      decode_outcome(wire, {reinterpret_cast<std::byte*>(&received), sizeof received});
  BOOST_TEST(head.threw == 1U);
  BOOST_TEST(head.description_bytes == 40U);
  BOOST_TEST(received == 2.5);

  std::vector<std::byte> empty(outcome_size(0));
  encode_outcome(empty, {0, 0}, {});
  BOOST_TEST(decode_outcome(empty, {}).threw == 0U);
}

BOOST_AUTO_TEST_CASE(a_message_cut_short_ends_the_program_with_a_message) {
  std::vector<std::byte> first = bytes_of("a piece");
  const std::vector<range_piece> pieces = {{first.data(), first.size()}};
  arrival_out out;
  out.pieces = pieces;
  std::vector<std::byte> wire = encode_arrival(out);
  wire.resize(wire.size() - 3);
  const tine_tests::death_result got =
      tine_tests::run_in_child([&] { (void)decode_arrival(wire); });
  BOOST_TEST(got.aborted);
  BOOST_TEST(got.stderr_text.find("a message is shorter than its header says") !=
             std::string::npos);
}
