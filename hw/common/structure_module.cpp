#include "hw/common/structure_module.hpp"

#include <algorithm>
#include <functional>
#include <set>

#include <tlm>

namespace smshare {

namespace {

// Visits `root` and its descendants depth first, in creation order, with
// their depth below `root`. An sc_vector lists its elements as its children
// although their parent is the enclosing module: only an object's own
// children are descended into, so each object is visited once.
void walk(const sc_core::sc_object& root, const std::function<void(const sc_core::sc_object&, size_t)>& visit,
          size_t depth = 0) {
  visit(root, depth);
  for (const sc_core::sc_object* child : root.get_child_objects())
    if (child->get_parent_object() == &root) walk(*child, visit, depth + 1);
}

}  // namespace

std::vector<StructureModule*> structures_under(const sc_core::sc_object& root) {
  std::vector<StructureModule*> out;
  walk(root, [&](const sc_core::sc_object& o, size_t) {
    // The hierarchy hands out const objects; the modules themselves are not.
    if (auto* m = dynamic_cast<const StructureModule*>(&o)) out.push_back(const_cast<StructureModule*>(m));
  });
  return out;
}

std::string describe_hierarchy(const sc_core::sc_object& root) {
  struct Line {
    std::string name, kind, plain_class;
  };
  std::vector<Line> lines;
  std::set<const sc_core::sc_object*> collapsed;  // elements of a vector shown as one line
  walk(root, [&](const sc_core::sc_object& o, size_t depth) {
    std::string kind = o.kind();
    if (auto* v = dynamic_cast<const sc_core::sc_vector_base*>(&o)) {
      // A vector of modules shows its elements; a vector of sockets is one line.
      const auto& elements = v->get_elements();
      if (elements.empty() || dynamic_cast<const sc_core::sc_module*>(elements[0])) return;
      collapsed.insert(elements.begin(), elements.end());
      kind = std::to_string(elements.size()) + " x " + elements[0]->kind();
    } else if (collapsed.count(&o) ||
               !(dynamic_cast<const sc_core::sc_module*>(&o) || dynamic_cast<const tlm::tlm_base_socket_if*>(&o) ||
                 dynamic_cast<const sc_core::sc_process_b*>(&o))) {
      return;  // a socket's own ports, exports and event queues
    }
    auto* m = dynamic_cast<const StructureModule*>(&o);
    lines.push_back({std::string(2 * depth, ' ') + o.name(), kind, m ? m->plain_class() : ""});
  });
  size_t name_width = 0, kind_width = 0;
  for (const Line& l : lines) {
    name_width = std::max(name_width, l.name.size());
    kind_width = std::max(kind_width, l.kind.size());
  }
  auto pad = [](std::string s, size_t width) { return s.append(width - s.size() + 2, ' '); };
  std::string out = pad("module", name_width) + pad("kind", kind_width) + "state in (plain C++)\n";
  for (const Line& l : lines)
    out += pad(l.name, name_width) + (l.plain_class.empty() ? l.kind : pad(l.kind, kind_width) + l.plain_class) + "\n";
  return out;
}

}  // namespace smshare
