//go:build linux

package main

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/bloomcrawl/bloomcrawl/lab/redistest"
)

// TestClusterFencePausedNode pauses (SIGSTOP) the node with the most
// pages for three lease TTLs mid-crawl, so that the other node takes its
// partitions and claims the entries it had taken, then resumes it
// (SIGCONT): the paused node must not store a page of a lease it lost (it
// logs that it dropped them), and must not acknowledge an entry the next
// owner claimed (it logs the acknowledgements refused). Every page is
// stored; a page stored by both nodes is one the paused node had
// committed locally just before the pause, its acknowledgement still
// queued: at most the acknowledgements refused.
func TestClusterFencePausedNode(t *testing.T) {
	const hosts, pages, nodes = 4, 150, 2
	const ttl = clusterLeaseTTL
	site := newClusterSite(t, hosts, pages)
	kids, stores := startClusterNodes(t, site, redistest.Start(t), nodes)
	waitFetched(t, site, hosts*pages/5)
	site.mu.Lock()
	victim, best := 0, -1
	for n := range nodes {
		if c := len(site.byNode[fmt.Sprintf("bloomcrawl-test node%d", n)]); c > best {
			best, victim = c, n
		}
	}
	site.mu.Unlock()
	p := kids[victim].cmd.Process
	if err := p.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	time.Sleep(3 * ttl)
	if err := p.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	t.Logf("paused node%d for %s with %d pages fetched by it", victim, 3*ttl, best)
	finishNodes(t, kids)
	t.Logf("the nodes finished %s after the pause", time.Since(start).Round(time.Second))
	log := kids[victim].err.String()
	const dropped = "lease lost (node paused or Redis unreachable past the lease TTL); page dropped"
	drops := strings.Count(log, dropped)
	if drops == 0 {
		t.Errorf("node%d: no %q in its log:\n%s", victim, dropped, tail(log, 30))
	}
	refused := 0
	for _, m := range regexp.MustCompile(`acknowledgements refused.* entries=(\d+)`).FindAllStringSubmatch(log, -1) {
		n, _ := strconv.Atoi(m[1])
		refused += n
	}
	all := map[string]int{}
	for _, s := range stores {
		for u := range storeURLs(t, s) {
			all[u]++
		}
	}
	site.mu.Lock()
	defer site.mu.Unlock()
	twice, stored2 := 0, 0
	for _, h := range site.hosts {
		for i := range pages {
			key := strings.TrimPrefix(h.URL, "http://") + "/p/" + strconv.Itoa(i)
			switch c := all["http://"+key]; {
			case c == 0:
				t.Errorf("%s stored by no node (fetched %d times)", key, site.count[key])
			case c > 1:
				stored2++
			}
			if site.count[key] > 1 {
				twice++
			}
		}
	}
	if stored2 > refused {
		t.Errorf("%d pages stored by both nodes, want at most the %d acknowledgements the paused node had queued before the pause (refused)", stored2, refused)
	}
	t.Logf("%d pages, %d fetched twice, %d dropped by the paused node, %d stored by both (%d acknowledgements refused)", hosts*pages, twice, drops, stored2, refused)
}
