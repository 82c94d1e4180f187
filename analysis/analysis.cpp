#include <tine/analysis/analysis.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <ostream>
#include <sstream>
#include <stdexcept>

namespace tine {

namespace {

/// The curves' worker counts in print() and the page.
constexpr std::size_t shown[] = {1, 2, 4, 8, 16, 32, 64, 128, 256};
constexpr std::size_t max_workers = 256;

/// T1 / (T1/p + (1 - 1/p) chain), Graham's bound for a chain of this length.
double graham(double work, double chain, std::size_t p) noexcept {
  if (work <= 0) {
    return 1;
  }
  const double n = static_cast<double>(p);
  return work / (work / n + (1 - 1 / n) * chain);
}

std::string seconds_text(double s) {
  char buf[32];
  const double a = std::fabs(s);
  if (a >= 1) {
    std::snprintf(buf, sizeof buf, "%.3g s", s);
  } else if (a >= 1e-3) {
    std::snprintf(buf, sizeof buf, "%.3g ms", s * 1e3);
  } else if (a >= 1e-6) {
    std::snprintf(buf, sizeof buf, "%.3g us", s * 1e6);
  } else {
    std::snprintf(buf, sizeof buf, "%.3g ns", s * 1e9);
  }
  return buf;
}

std::string number_text(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, x >= 100 ? "%.0f" : "%.3g", x);
  return buf;
}

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (const char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20 || c == '<' || c == '>' || c == '&') {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned char>(c));
      out += buf;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string html_text(const std::string& s) {
  std::string out;
  for (const char c : s) {
    switch (c) {
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '&':
        out += "&amp;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string json_number(double x) {
  if (!std::isfinite(x)) {
    return "null";
  }
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.9g", x);
  return buf;
}

void write_file(const std::string& path, const std::string& text, const char* what) {
  std::ofstream f(path, std::ios::binary);
  f << text;
  f.close();
  if (!f) {
    throw std::runtime_error(std::string("tine::analysis::") + what + ": cannot write '" + path +
                             "'");
  }
}

/// The lowest speed-up any curve reaches (1 when none is below 1).
double lowest_speedup(const analysis& a) {
  double lowest = 1;
  for (std::size_t p = 1; p <= max_workers; ++p) {
    for (const double s : {a.speedup(p), a.speedup_greedy(p), a.speedup_bound(p)}) {
      if (std::isfinite(s) && s > 0) {
        lowest = std::min(lowest, s);
      }
    }
  }
  return lowest;
}

/// The page's chart: speed-up against workers, both on log2 axes, workers from 1 to 256, speed-up
/// from 256 down to the power of two at or below the lowest point of any curve (a prediction
/// below 1, as on a machine whose steals cost more than the strands they split, shows as such),
/// but not below 2^-10.
std::string chart_svg(const analysis& a) {
  constexpr double w = 640;
  constexpr double h = 400;
  constexpr double left = 56;
  constexpr double right = 16;
  constexpr double top = 16;
  constexpr double bottom = 44;
  const double max_log = std::log2(static_cast<double>(max_workers));
  const double min_log = std::max(-10.0, std::floor(std::log2(lowest_speedup(a))));
  auto x = [&](double p) { return left + (w - left - right) * std::log2(p) / max_log; };
  auto y = [&](double s) {
    const double l = std::clamp(std::log2(std::max(s, 1e-300)), min_log, max_log);
    return top + (h - top - bottom) * (max_log - l) / (max_log - min_log);
  };
  std::ostringstream svg;
  svg << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << w << "\" height=\"" << h
      << "\" viewBox=\"0 0 " << w << ' ' << h << "\" role=\"img\" aria-label=\"speed-up curve\">\n";
  svg << "<rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>\n";
  for (const std::size_t p : shown) {
    const double px = x(static_cast<double>(p));
    svg << "<line x1=\"" << px << "\" y1=\"" << top << "\" x2=\"" << px << "\" y2=\"" << h - bottom
        << "\" stroke=\"#eee\"/>";
    svg << "<text x=\"" << px << "\" y=\"" << h - bottom + 16
        << "\" font-size=\"11\" text-anchor=\"middle\">" << p << "</text>\n";
  }
  for (int k = static_cast<int>(min_log); k <= static_cast<int>(max_log); ++k) {
    const double s = std::ldexp(1.0, k);
    const double py = y(s);
    char label[16];
    std::snprintf(label, sizeof label, "%g", s);
    // Speed-up 1, where a curve below it loses to one worker, darker when the axis goes below.
    svg << "<line class=\"speedup-grid\" data-speedup=\"" << label << "\" x1=\"" << left
        << "\" y1=\"" << py << "\" x2=\"" << w - right << "\" y2=\"" << py << "\" stroke=\""
        << (k == 0 && min_log < 0 ? "#999" : "#eee") << "\"/>";
    svg << "<text x=\"" << left - 6 << "\" y=\"" << py + 4
        << "\" font-size=\"11\" text-anchor=\"end\">" << label << "</text>\n";
  }
  svg << "<text x=\"" << (left + w - right) / 2 << "\" y=\"" << h - 8
      << "\" font-size=\"12\" text-anchor=\"middle\">workers P</text>\n";
  svg << "<text x=\"14\" y=\"" << (top + h - bottom) / 2
      << "\" font-size=\"12\" text-anchor=\"middle\" transform=\"rotate(-90 14 "
      << (top + h - bottom) / 2 << ")\">speed-up</text>\n";
  struct curve {
    const char* label;
    const char* colour;
    const char* dash;
    double (analysis::*f)(std::size_t) const noexcept;
  };
  const curve curves[] = {
      {"ceiling min(P, T1/Tinf)", "#888", "6 4", &analysis::speedup_bound},
      {"greedy bound, plain span", "#4a90d9", "2 3", &analysis::speedup_greedy},
      {"predicted (burdened span)", "#d94a4a", "", &analysis::speedup},
  };
  int row = 0;
  for (const curve& c : curves) {
    svg << "<polyline fill=\"none\" stroke=\"" << c.colour << "\" stroke-width=\"2\"";
    if (*c.dash != '\0') {
      svg << " stroke-dasharray=\"" << c.dash << '"';
    }
    svg << " points=\"";
    for (std::size_t p = 1; p <= max_workers; ++p) {
      svg << x(static_cast<double>(p)) << ',' << y((a.*c.f)(p)) << ' ';
    }
    svg << "\"/>\n";
    const double ly = top + 12 + 16 * row++;
    svg << "<line x1=\"" << left + 12 << "\" y1=\"" << ly - 4 << "\" x2=\"" << left + 36
        << "\" y2=\"" << ly - 4 << "\" stroke=\"" << c.colour << "\" stroke-width=\"2\"";
    if (*c.dash != '\0') {
      svg << " stroke-dasharray=\"" << c.dash << '"';
    }
    svg << "/><text x=\"" << left + 42 << "\" y=\"" << ly << "\" font-size=\"12\">" << c.label
        << "</text>\n";
  }
  svg << "</svg>\n";
  return svg.str();
}

}  // namespace

double analysis::speedup(std::size_t p) const noexcept {
  return graham(m.work, m.burdened_span, std::max<std::size_t>(p, 1));
}

double analysis::speedup_greedy(std::size_t p) const noexcept {
  return graham(m.work, m.span, std::max<std::size_t>(p, 1));
}

double analysis::speedup_bound(std::size_t p) const noexcept {
  return std::min(static_cast<double>(std::max<std::size_t>(p, 1)), parallelism());
}

void analysis::print(std::ostream& out) const {
  // In unit mode (analysis_options::unit_strands) every measure is a number of strands.
  auto t = [this](double x) {
    return m.units ? number_text(x) + (x == 1 ? " strand" : " strands") : seconds_text(x);
  };
  std::ostringstream o;
  o << "tine::analyze: " << m.name;
  if (m.runs > 1) {
    o << "   (each strand's shortest time over " << m.runs << " runs)";
  }
  o << '\n';
  o << "  work            " << t(m.work) << "   (" << m.forks << " forks, " << m.joins
    << " joins)\n";
  o << "  span            " << t(m.span) << "   (" << m.critical_strands
    << " strands on the longest chain; its longest strand " << t(m.longest_strand);
  if (m.span > 0) {
    o << ", " << number_text(100 * m.longest_strand / m.span) << "% of the span";
  }
  o << ")\n";
  o << "  burdened span   " << t(m.burdened_span) << "   (a steal costs " << t(m.steal_cost)
    << (m.steal_cost_measured ? ", measured on this machine)\n" : ", as given)\n");
  if (m.steal_cost_measured) {
    o << "  steal cost      " << m.steal_cost_batches << " batches of rounds: the two lowest "
      << number_text(m.steal_cost_agreement) << "x apart, the highest "
      << number_text(m.steal_cost_spread) << "x the lowest\n";
  }
  o << "  parallelism     " << number_text(parallelism()) << "   (burdened "
    << number_text(burdened_parallelism()) << ")\n";
  o << "  speed-up on P workers: predicted T1/(T1/P + (1-1/P) burdened span); ceiling "
       "min(P, T1/Tinf)\n";
  o << "    P        ";
  for (const std::size_t p : shown) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "%7zu", p);
    o << buf;
  }
  o << "\n    predicted";
  for (const std::size_t p : shown) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "%7.2f", speedup(p));
    o << buf;
  }
  o << "\n    ceiling  ";
  for (const std::size_t p : shown) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "%7.2f", speedup_bound(p));
    o << buf;
  }
  o << '\n';
  if (!m.regions.empty()) {
    o << "  regions (work and span summed over each region's runs):\n";
    for (const region_summary& r : m.regions) {
      o << "    " << r.name << ": " << r.count << (r.count == 1 ? " run" : " runs") << ", work "
        << t(r.work) << ", span " << t(r.span) << " (burdened " << t(r.burdened_span)
        << "), parallelism " << number_text(r.parallelism()) << '\n';
    }
  }
  for (const std::string& p : m.problems) {
    o << "  not measured: " << p << '\n';
  }
  for (const std::string& w : m.warnings) {
    o << "  warning: " << w << '\n';
  }
  out << o.str();
}

void analysis::write_json(const std::string& path) const {
  std::ostringstream j;
  j << "{\"tine_analysis\": 1, \"name\": " << json_string(m.name)
    << ", \"work\": " << json_number(m.work) << ", \"span\": " << json_number(m.span)
    << ", \"burdened_span\": " << json_number(m.burdened_span)
    << ", \"steal_cost\": " << json_number(m.steal_cost)
    << ", \"steal_cost_measured\": " << (m.steal_cost_measured ? "true" : "false")
    << ", \"steal_cost_batches\": "
    << (m.steal_cost_measured ? std::to_string(m.steal_cost_batches) : std::string("null"))
    << ", \"steal_cost_agreement\": "
    << (m.steal_cost_measured ? json_number(m.steal_cost_agreement) : std::string("null"))
    << ", \"steal_cost_spread\": "
    << (m.steal_cost_measured ? json_number(m.steal_cost_spread) : std::string("null"))
    << ", \"units\": " << (m.units ? "\"strands\"" : "\"seconds\"") << ", \"runs\": " << m.runs
    << ", \"workers\": " << m.workers << ", \"forks\": " << m.forks << ", \"joins\": " << m.joins
    << ", \"critical_strands\": " << m.critical_strands
    << ", \"longest_strand\": " << json_number(m.longest_strand)
    << ", \"parallelism\": " << json_number(parallelism())
    << ", \"burdened_parallelism\": " << json_number(burdened_parallelism()) << ",\n \"curve\": [";
  for (std::size_t p = 1; p <= max_workers; ++p) {
    j << (p == 1 ? "" : ", ") << "{\"p\": " << p << ", \"predicted\": " << json_number(speedup(p))
      << ", \"greedy\": " << json_number(speedup_greedy(p))
      << ", \"ceiling\": " << json_number(speedup_bound(p)) << '}';
  }
  j << "],\n \"regions\": [";
  for (std::size_t i = 0; i < m.regions.size(); ++i) {
    const region_summary& r = m.regions[i];
    j << (i == 0 ? "" : ", ") << "{\"name\": " << json_string(r.name) << ", \"count\": " << r.count
      << ", \"work\": " << json_number(r.work) << ", \"span\": " << json_number(r.span)
      << ", \"burdened_span\": " << json_number(r.burdened_span) << '}';
  }
  j << "],\n \"problems\": [";
  for (std::size_t i = 0; i < m.problems.size(); ++i) {
    j << (i == 0 ? "" : ", ") << json_string(m.problems[i]);
  }
  j << "],\n \"warnings\": [";
  for (std::size_t i = 0; i < m.warnings.size(); ++i) {
    j << (i == 0 ? "" : ", ") << json_string(m.warnings[i]);
  }
  j << "]}\n";
  write_file(path, j.str(), "write_json");
}

void analysis::write_html(const std::string& path) const {
  std::ostringstream table;
  print(table);
  std::ostringstream page;
  page << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
       << "<title>tine::analyze: " << html_text(m.name) << "</title>"
       << "<style>body{font-family:sans-serif;margin:24px;color:#222}"
       << "pre{background:#f6f6f6;padding:12px;font-size:13px}"
       << ".warning{background:#fff4e5;border-left:4px solid #e8590c;padding:8px 12px}"
       << "</style></head><body>\n"
       << "<h1>" << html_text(m.name) << ": how far it scales</h1>\n";
  for (const std::string& w : m.warnings) {
    page << "<p class=\"warning\"><strong>Warning:</strong> " << html_text(w) << "</p>\n";
  }
  page << chart_svg(*this) << "<pre>" << html_text(table.str()) << "</pre>\n"
       << "<p>Work T1 is the time of all strands; span Tinf the longest chain of dependent "
       << "strands; the burdened span charges each fork's continuation one steal. The prediction "
       << "is Graham's bound for greedy schedulers with the burdened span, "
       << "T1/(T1/P + (1-1/P) burdened span); the ceiling is min(P, T1/Tinf).</p>\n"
       << "</body></html>\n";
  write_file(path, page.str(), "write_html");
}

}  // namespace tine
