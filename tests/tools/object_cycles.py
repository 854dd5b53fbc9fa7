"""object_cycles.py — the files of a library that depend on each other in a circle.

Reads the objects and archives named on the command line with nm (an
archive stands for its members): object A depends on object B when A uses
a symbol B defines. Prints one line per strongly
connected group of two or more objects (a cycle: each can reach the others),
naming the source files, with one symbol for each edge of the group, and
exits 1 when there is any; prints nothing and exits 0 otherwise.
"""
import collections
import os
import subprocess
import sys


def source_name(obj):
    # libtool names objects <target>_la-<source>.o
    base = os.path.basename(obj)
    return base.split("-", 1)[-1][:-2] + ".c" if base.endswith(".o") else base


def read_symbols(paths):
    """The objects, the symbol -> object that defines it, object -> symbols used."""
    objects, defined, used = [], {}, collections.defaultdict(set)
    for path in paths:
        out = subprocess.run(["nm", path], capture_output=True, text=True, check=True).stdout
        obj = path
        if not path.endswith(".a"):
            objects.append(obj)
        for line in out.splitlines():
            fields = line.split()
            if len(fields) == 1 and line.endswith(":"):  # an archive's member
                obj = line[:-1]
                objects.append(obj)
            elif len(fields) == 3 and fields[1] in "TDBRC":
                defined[fields[2]] = obj
            elif len(fields) == 2 and fields[0] == "U":
                used[obj].add(fields[1])
    return objects, defined, used


def groups_in_circles(objects, edges):
    """Tarjan's strongly connected components, without recursion."""
    index, low, on_stack, stack, found = {}, {}, set(), [], []
    counter = 0
    for root in objects:
        if root in index:
            continue
        work = [(root, iter(edges[root]))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is None:
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == index[node]:
                    group = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        group.append(member)
                        if member == node:
                            break
                    if len(group) > 1:
                        found.append(sorted(group))
            elif child not in index:
                index[child] = low[child] = counter
                counter += 1
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(edges[child])))
            elif child in on_stack:
                low[node] = min(low[node], index[child])
    return found


def main(paths):
    objects, defined, used = read_symbols(paths)
    edges = {}
    why = {}
    for obj in objects:
        targets = set()
        for sym in sorted(used[obj]):
            other = defined.get(sym)
            if other is not None and other != obj:
                targets.add(other)
                why.setdefault((obj, other), sym)
        edges[obj] = sorted(targets)
    circles = groups_in_circles(objects, edges)
    for group in circles:
        members = set(group)
        links = ["%s -> %s (%s)" % (source_name(a), source_name(b), why[(a, b)])
                 for a in group for b in edges[a] if b in members]
        print(" ".join(source_name(m) for m in group) + ": " + "; ".join(links))
    return 1 if circles else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
