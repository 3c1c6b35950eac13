package record

import "slices"

// MergeTrees combines schedule trees of shares of one search (the shards of heddle test
// -shard, the workers of -workers) into one, numbered anew. Each share explores the
// decisions above its split in full, so the same path can be in several trees: nodes reached
// by the same edges from the same parent are one node, with the union of the alternatives
// pruned there. Leaves stay apart: each is a run. Parents still come before their children.
func MergeTrees(trees ...[]Node) []Node {
	type edge struct {
		parent           int
		kind, g, op, obj string
	}
	var out []Node
	byEdge := map[edge]int{}
	for _, tree := range trees {
		ids := make(map[int]int, len(tree)) // the tree's ids to the merged tree's
		for _, n := range tree {
			parent := -1
			if n.Parent >= 0 {
				p, ok := ids[n.Parent]
				if !ok {
					continue // a node without its parent: not part of the tree
				}
				parent = p
			}
			if n.Leaf == nil {
				k := edge{parent, n.Kind, n.G, n.Op, n.Obj}
				if i, ok := byEdge[k]; ok {
					ids[n.ID] = i
					m := &out[i]
					for _, p := range n.Pruned {
						if !slices.Contains(m.Pruned, p) {
							m.Pruned = append(m.Pruned, p)
						}
					}
					if m.Pos == nil {
						m.Pos = n.Pos
					}
					continue
				}
				byEdge[k] = len(out)
			}
			ids[n.ID] = len(out)
			n.ID, n.Parent = len(out), parent
			n.Pruned = slices.Clone(n.Pruned)
			out = append(out, n)
		}
	}
	return out
}
