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
// The default strategy is the portfolio ("portfolio", portfolio.go): DPOR, PCT at bug depths 1
// to 3 and random sampling take turns, one run at a time, each with a share of the steps
// executed, so a program too deep for DPOR to exhaust is still sampled, and an exploration
// stops as complete when DPOR's search ends with nothing left out. docs/strategies.md has the
// details.
//
// Every run is described by a Guide (a schedule prefix to replay, a sleep set and a policy to
// extend the schedule), so runs can execute in this process or in worker processes.
package explorer
