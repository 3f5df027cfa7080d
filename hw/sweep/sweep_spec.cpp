#include "hw/sweep/sweep_spec.hpp"

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>

#include "hw/common/error.hpp"
#include "hw/common/host_threads.hpp"
#include "hw/common/text.hpp"
#include "hw/common/yaml_file.hpp"

namespace smshare {

namespace {

namespace fs = std::filesystem;

// A plain axis sets the `smshare run` parameter of its own name; `set` holds
// one axis per --set key (column "set.<key>"). Any other name whose value is
// a mapping is a bundle axis: each of its labels sets several parameters.
struct ParameterFlag {
  const char* name;
  const char* flag;
};
constexpr ParameterFlag kParameters[] = {
    {"config", "--config"},       {"kernel", "--kernel"},
    {"trace", "--trace"},         {"mechanism", "--mechanism"},
    {"sharing", "--sharing"},     {"scheduler", "--scheduler"},
    {"seed", "--seed"},           {"ctas", "--ctas"},
    {"threads_per_cta", "--threads-per-cta"}, {"regs_per_thread", "--regs-per-thread"},
    {"smem_per_cta", "--smem-per-cta"},
};
constexpr const char* kSetPrefix = "set.";
const std::vector<std::string> kTopKeys = {"name",    "description", "axes", "grids",       "zip",
                                           "exclude", "outputs",     "plot", "host_threads"};

using Settings = std::vector<std::pair<std::string, std::string>>;  // parameter -> value, in order

struct Axis {
  std::string column;
  std::vector<std::string> labels;   // values as written; a bundle's labels
  std::vector<Settings> bundle;      // a bundle axis: the settings of each label; empty for a plain axis
};

bool is_parameter(const std::string& name) {
  for (const auto& p : kParameters)
    if (name == p.name) return true;
  return false;
}

class SpecReader {
 public:
  explicit SpecReader(std::string file) : file_(std::move(file)) {}

  SweepSpec read() {
    const YAML::Node root = load_yaml_file(file_);
    if (!root.IsMap()) throw input_error(file_, "", "a sweep spec is a YAML mapping with the keys " + join(kTopKeys));
    for (const auto& kv : root) {
      const std::string key = kv.first.Scalar();
      if (std::find(kTopKeys.begin(), kTopKeys.end(), key) == kTopKeys.end())
        throw input_error(file_, key, "unknown key; allowed: " + join(kTopKeys));
    }
    SweepSpec spec;
    spec.file = file_;
    spec.name = fs::path(file_).stem().string();
    if (root["name"]) spec.name = scalar(root["name"], "name");
    if (spec.name.empty() || !std::all_of(spec.name.begin(), spec.name.end(), [](char c) {
          return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-';
        }))
      throw input_error(file_, "name", "'" + spec.name + "' must be letters, digits, '.', '_' or '-' (it names the "
                                       "output folder)");
    if (root["description"]) spec.description = scalar(root["description"], "description");
    if (!root["axes"] && !root["grids"]) throw input_error(file_, "axes", "missing: a spec needs axes (or grids)");
    if (root["host_threads"])
      host_threads_ = parse_host_threads(scalar(root["host_threads"], "host_threads"), file_, "host_threads");
    spec.host_threads = host_threads_;

    const std::vector<Axis> common = root["axes"] ? read_axes(root["axes"], "axes") : std::vector<Axis>{};
    std::vector<std::vector<Axis>> grids;
    if (root["grids"]) {
      const YAML::Node g = root["grids"];
      if (!g.IsSequence() || g.size() == 0)
        throw input_error(file_, "grids", "must be a non-empty list of mappings of axes");
      for (size_t i = 0; i < g.size(); ++i)
        grids.push_back(merged(common, read_axes(g[i], "grids[" + std::to_string(i) + "]")));
    } else {
      grids.push_back(common);
    }
    const auto zips = read_zips(root["zip"]);
    const auto excludes = read_excludes(root["exclude"]);
    const bool several = grids.size() > 1;
    if (several) spec.columns.push_back("grid");
    for (const auto& grid : grids)
      for (const Axis& a : grid)
        if (std::find(spec.columns.begin(), spec.columns.end(), a.column) == spec.columns.end())
          spec.columns.push_back(a.column);
    check_names(zips, excludes, spec.columns);
    for (size_t i = 0; i < grids.size(); ++i) {
      const std::string where = several ? "grids[" + std::to_string(i) + "]" : "axes";
      expand(grids[i], zips, excludes, several ? std::optional<size_t>(i) : std::nullopt, where, spec.runs);
    }
    if (spec.runs.empty()) throw input_error(file_, "exclude", "the spec expands to no run: every run is excluded");
    for (SweepRun& run : spec.runs) order_columns(run, spec.columns);

    spec.outputs = {"cycles", "ipc"};
    if (root["outputs"]) spec.outputs = list_of_scalars(root["outputs"], "outputs");
    if (root["plot"]) {
      if (!root["plot"].IsSequence()) throw input_error(file_, "plot", "must be a list of plots (docs/sweeps.md)");
      spec.plot = root["plot"];
    }
    return spec;
  }

 private:
  std::string scalar(const YAML::Node& n, const std::string& key) const {
    if (!n.IsScalar()) throw input_error(file_, key, "must be a single value, not a list or mapping");
    return n.Scalar();
  }

  std::vector<std::string> list_of_scalars(const YAML::Node& n, const std::string& key) const {
    std::vector<std::string> values;
    if (n.IsScalar()) return {n.Scalar()};
    if (!n.IsSequence() || n.size() == 0) throw input_error(file_, key, "must be a value or a non-empty list of values");
    for (size_t i = 0; i < n.size(); ++i) values.push_back(scalar(n[i], key + "[" + std::to_string(i) + "]"));
    std::vector<std::string> sorted = values;
    std::sort(sorted.begin(), sorted.end());
    const auto dup = std::adjacent_find(sorted.begin(), sorted.end());
    if (dup != sorted.end()) throw input_error(file_, key, "lists '" + *dup + "' twice");
    return values;
  }

  std::vector<Axis> read_axes(const YAML::Node& node, const std::string& where) const {
    if (!node.IsMap()) throw input_error(file_, where, "must be a mapping of axis names to values");
    std::vector<Axis> axes;
    for (const auto& kv : node) {
      const std::string name = kv.first.Scalar();
      const std::string key = where + "." + name;
      if (name == "set") {
        if (!kv.second.IsMap())
          throw input_error(file_, key, "must be a mapping of --set keys to values (e.g. sm.scheduler: [lrr, gto])");
        for (const auto& s : kv.second) {
          const std::string set_key = s.first.Scalar();
          axes.push_back({kSetPrefix + set_key, list_of_scalars(s.second, key + "." + set_key), {}});
        }
      } else if (is_parameter(name)) {
        axes.push_back({name, list_of_scalars(kv.second, key), {}});
      } else if (kv.second.IsMap()) {
        axes.push_back(read_bundle(name, kv.second, key));
      } else {
        throw input_error(file_, key,
                          "not an axis; axes: " + join(sweep_axis_names()) +
                              ", set (a mapping of --set keys), or a bundle axis (a mapping of labels to settings)");
      }
    }
    return axes;
  }

  Axis read_bundle(const std::string& name, const YAML::Node& node, const std::string& key) const {
    Axis axis{name, {}, {}};
    if (node.size() == 0) throw input_error(file_, key, "a bundle axis needs at least one label");
    for (const auto& kv : node) {
      const std::string label = kv.first.Scalar();
      const std::string at = key + "." + label;
      if (!kv.second.IsMap())
        throw input_error(file_, at, "a bundle's label maps to its settings, e.g. {mechanism: baseline, scheduler: lrr}");
      Settings settings;
      for (const auto& s : kv.second) {
        const std::string p = s.first.Scalar();
        if (p == "set") {
          if (!s.second.IsMap()) throw input_error(file_, at + ".set", "must be a mapping of --set keys to values");
          for (const auto& kv2 : s.second)
            settings.emplace_back(kSetPrefix + kv2.first.Scalar(), scalar(kv2.second, at + ".set." + kv2.first.Scalar()));
        } else if (is_parameter(p)) {
          settings.emplace_back(p, scalar(s.second, at + "." + p));
        } else {
          throw input_error(file_, at + "." + p, "not a setting; allowed: " + join(sweep_axis_names()) + ", set");
        }
      }
      axis.labels.push_back(label);
      axis.bundle.push_back(std::move(settings));
    }
    return axis;
  }

  // A grid's axes replace the common axes of the same column, in place; new ones follow.
  static std::vector<Axis> merged(std::vector<Axis> base, const std::vector<Axis>& grid) {
    for (const Axis& a : grid) {
      auto it = std::find_if(base.begin(), base.end(), [&](const Axis& b) { return b.column == a.column; });
      if (it != base.end()) *it = a;
      else base.push_back(a);
    }
    return base;
  }

  std::vector<std::vector<std::string>> read_zips(const YAML::Node& node) const {
    std::vector<std::vector<std::string>> zips;
    if (!node) return zips;
    if (!node.IsSequence()) throw input_error(file_, "zip", "must be a list of lists of axis names, e.g. [[kernel, ctas]]");
    std::vector<std::string> seen;
    for (size_t i = 0; i < node.size(); ++i) {
      const std::string key = "zip[" + std::to_string(i) + "]";
      auto group = list_of_scalars(node[i], key);
      if (group.size() < 2) throw input_error(file_, key, "a zip names at least two axes");
      for (const auto& c : group) {
        if (std::find(seen.begin(), seen.end(), c) != seen.end())
          throw input_error(file_, key, "axis '" + c + "' is in two zips");
        seen.push_back(c);
      }
      zips.push_back(std::move(group));
    }
    return zips;
  }

  std::vector<Settings> read_excludes(const YAML::Node& node) const {
    std::vector<Settings> excludes;
    if (!node) return excludes;
    if (!node.IsSequence()) throw input_error(file_, "exclude", "must be a list of mappings {axis: value, ...}");
    for (size_t i = 0; i < node.size(); ++i) {
      const std::string key = "exclude[" + std::to_string(i) + "]";
      if (!node[i].IsMap() || node[i].size() == 0)
        throw input_error(file_, key, "must be a non-empty mapping {axis: value, ...}");
      Settings match;
      for (const auto& kv : node[i]) {
        const std::string k = kv.first.Scalar();
        if (k == "set" && kv.second.IsMap()) {
          for (const auto& s : kv.second) match.emplace_back(kSetPrefix + s.first.Scalar(), scalar(s.second, key + ".set"));
        } else {
          match.emplace_back(k, scalar(kv.second, key + "." + k));
        }
      }
      excludes.push_back(std::move(match));
    }
    return excludes;
  }

  // Zips and exclusions name columns of some grid (or, for an exclusion, a
  // parameter a bundle sets).
  void check_names(const std::vector<std::vector<std::string>>& zips, const std::vector<Settings>& excludes,
                   const std::vector<std::string>& columns) const {
    const auto is_column = [&](const std::string& c) {
      return std::find(columns.begin(), columns.end(), c) != columns.end();
    };
    for (size_t z = 0; z < zips.size(); ++z)
      for (const auto& c : zips[z])
        if (!is_column(c))
          throw input_error(file_, "zip[" + std::to_string(z) + "]",
                            "'" + c + "' is not an axis of the spec; axes: " + join(columns));
    for (size_t e = 0; e < excludes.size(); ++e)
      for (const auto& kv : excludes[e])
        if (!is_column(kv.first) && !is_parameter(kv.first) && !starts_with(kv.first, kSetPrefix))
          throw input_error(file_, "exclude[" + std::to_string(e) + "]." + kv.first,
                            "not an axis or parameter; allowed: " + join(columns) + ", " +
                                join(sweep_axis_names()) + ", set.<key>");
  }

  // The product of the grid's dimensions (a zip is one dimension), without
  // the excluded runs.
  void expand(const std::vector<Axis>& axes, const std::vector<std::vector<std::string>>& zips,
              const std::vector<Settings>& excludes, std::optional<size_t> grid, const std::string& where,
              std::vector<SweepRun>& out) const {
    const auto column_known = [&](const std::string& c) {
      return std::any_of(axes.begin(), axes.end(), [&](const Axis& a) { return a.column == c; });
    };
    std::vector<std::vector<size_t>> dims;  // each: the axes (indices) varying together
    std::vector<bool> placed(axes.size(), false);
    for (size_t i = 0; i < axes.size(); ++i) {
      if (placed[i]) continue;
      std::vector<size_t> dim{i};
      placed[i] = true;
      for (size_t z = 0; z < zips.size(); ++z) {
        const auto& zip = zips[z];
        if (std::find(zip.begin(), zip.end(), axes[i].column) == zip.end()) continue;
        for (const auto& c : zip) {
          if (!column_known(c))
            throw input_error(file_, "zip[" + std::to_string(z) + "]",
                              "names '" + c + "', which is not an axis of " + where);
          for (size_t j = 0; j < axes.size(); ++j)
            if (axes[j].column == c && !placed[j]) dim.push_back(j), placed[j] = true;
        }
        for (size_t j : dim)
          if (axes[j].labels.size() != axes[i].labels.size())
            throw input_error(file_, "zip[" + std::to_string(z) + "]",
                              "zipped axes need equal lengths: '" + axes[i].column + "' has " +
                                  std::to_string(axes[i].labels.size()) + " values, '" + axes[j].column + "' " +
                                  std::to_string(axes[j].labels.size()) + " (in " + where + ")");
      }
      dims.push_back(std::move(dim));
    }
    std::vector<size_t> index(dims.size(), 0);
    while (true) {
      SweepRun run;
      std::map<std::string, std::string> params;
      std::map<std::string, std::string> from_bundle;  // parameter -> bundle column that set it
      if (grid) run.columns.emplace_back("grid", std::to_string(*grid));
      for (size_t d = 0; d < dims.size(); ++d)
        for (size_t a : dims[d]) {
          const Axis& axis = axes[a];
          run.columns.emplace_back(axis.column, axis.labels[index[d]]);
          if (axis.bundle.empty()) {
            if (!from_bundle.count(axis.column)) params[axis.column] = axis.labels[index[d]];
            continue;
          }
          for (const auto& [p, v] : axis.bundle[index[d]]) {
            if (from_bundle.count(p))
              throw input_error(file_, where + "." + axis.column + "." + axis.labels[index[d]] + "." + p,
                                "also set by bundle axis '" + from_bundle[p] + "' in the same run; a parameter "
                                "may come from one bundle only");
            from_bundle[p] = axis.column;
            params[p] = v;
          }
        }
      if (!excluded(run, params, excludes)) {
        run.run_args = run_args(params, where, run);
        out.push_back(std::move(run));
      }
      size_t d = dims.size();
      while (d > 0 && ++index[d - 1] == axes[dims[d - 1][0]].labels.size()) index[--d] = 0;
      if (d == 0) break;
    }
  }

  static bool excluded(const SweepRun& run, const std::map<std::string, std::string>& params,
                       const std::vector<Settings>& excludes) {
    const auto value_of = [&](const std::string& k) -> std::optional<std::string> {
      for (const auto& [c, v] : run.columns)
        if (c == k) return v;
      const auto it = params.find(k);
      if (it != params.end()) return it->second;
      return std::nullopt;
    };
    return std::any_of(excludes.begin(), excludes.end(), [&](const Settings& match) {
      return std::all_of(match.begin(), match.end(), [&](const auto& kv) { return value_of(kv.first) == kv.second; });
    });
  }

  std::vector<std::string> run_args(const std::map<std::string, std::string>& params, const std::string& where,
                                    const SweepRun& run) const {
    if (params.count("kernel") && params.count("trace"))
      throw input_error(file_, where, "run " + run.describe() + " has both a kernel and a trace; give one workload");
    std::vector<std::string> args{"run"};
    for (const auto& p : kParameters) {
      const auto it = params.find(p.name);
      if (it == params.end()) continue;
      const std::string name = p.name;
      const bool file_like = name == "config" || name == "kernel" || name == "trace";
      args.push_back(p.flag);
      args.push_back(file_like ? resolved_path(it->second) : it->second);
    }
    for (const auto& [k, v] : params)
      if (starts_with(k, kSetPrefix)) {
        args.push_back("--set");
        args.push_back(k.substr(std::string(kSetPrefix).size()) + "=" + v);
      }
    if (host_threads_ > 1) {
      args.push_back("--host-threads");
      args.push_back(std::to_string(host_threads_));
    }
    return args;
  }

  // A config, kernel or trace given as a path (it has a '/' or ends in
  // .yaml) is relative to the spec's folder, so a spec runs the same from
  // any working directory; a name (kepler, hotspot) stays a name.
  std::string resolved_path(const std::string& value) const {
    if (value.find('/') == std::string::npos && !ends_with(value, ".yaml")) return value;
    const fs::path p(value);
    if (p.is_absolute()) return value;
    return (fs::absolute(fs::path(file_)).parent_path() / p).lexically_normal().string();
  }

  static void order_columns(SweepRun& run, const std::vector<std::string>& columns) {
    std::vector<std::pair<std::string, std::string>> ordered;
    for (const auto& c : columns)
      for (const auto& kv : run.columns)
        if (kv.first == c) ordered.push_back(kv);
    run.columns = std::move(ordered);
  }

  std::string file_;
  unsigned host_threads_ = 1;  // `host_threads:`, read before the runs are expanded
};

}  // namespace

std::string SweepRun::describe() const {
  std::string s;
  for (const auto& [c, v] : columns) s += (s.empty() ? "" : " ") + c + "=" + v;
  return s;
}

const std::vector<std::string>& sweep_axis_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (const auto& p : kParameters) n.push_back(p.name);
    return n;
  }();
  return names;
}

SweepSpec load_sweep_spec(const std::string& path) { return SpecReader(path).read(); }

}  // namespace smshare
