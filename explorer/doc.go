// Package explorer is heddle's exploring scheduler: it runs a program many times under the
// controlled runtime (package rt), each time steered by a strategy, and collects the bugs the
// runs reveal.
//
// The systematic strategies are stateless depth-first searches over the tree of decisions:
// naive exhaustive search ("dfs", the ground truth), ExitBlock ("exitblock", Bruening's thesis
// §2.3), Stoller's invisible-first search with sleep sets ("stoller", and "stoller-ps" with
// persistent sets by Algorithm 2-MLD) and dynamic partial-order reduction ("dpor", optimal
// DPOR after Abdulla et al. 2014, and "dpor-sleep", Flanagan and Godefroid 2005). Preemption
// bounding ("bounded", CHESS) deepens the bound iteratively. PCT ("pct", Burckhardt et al.
// 2010) and uniform random sampling ("random") serve programs too large to exhaust.
//
// Every run is described by a Guide (a schedule prefix to replay, a sleep set and a policy to
// extend the schedule), so runs can execute in this process or in worker processes.
package explorer
