package memlimit

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Ceiling is how much memory this process may use before the kernel's
// OOM killer ends it: its cgroup's limit (v2 memory.max, v1
// memory.limit_in_bytes) when there is one below the machine's RAM,
// otherwise the RAM (MemTotal). 0 when neither can be read (not Linux).
// source says which it is.
func Ceiling() (bytes int64, source string) {
	ram := meminfoTotal()
	limit := cgroupMemLimit()
	if limit > 0 && (ram == 0 || limit < ram) {
		return limit, "cgroup memory limit"
	}
	if ram > 0 {
		return ram, "RAM"
	}
	return 0, ""
}

func meminfoTotal() int64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "MemTotal:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err == nil {
				return kb << 10
			}
		}
	}
	return 0
}

// cgroupMemLimit reads the memory limit of this process's cgroup (v2, or
// v1's memory controller): the smallest limit of its cgroup and the
// cgroup's ancestors (limits are hierarchical). Inside a container the
// hierarchy is mounted at the container's own cgroup, so every suffix of
// the cgroup path is tried under the mount. 0 = none found.
func cgroupMemLimit() int64 {
	data, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return 0
	}
	var best int64
	try := func(mount, cgPath, file string) {
		parts := strings.Split(strings.Trim(cgPath, "/"), "/")
		for i := 0; i <= len(parts); i++ {
			dir := filepath.Join(append([]string{mount}, parts[i:]...)...)
			for ; strings.HasPrefix(dir, mount); dir = filepath.Dir(dir) {
				b, err := os.ReadFile(filepath.Join(dir, file))
				if err != nil {
					if dir == mount {
						break
					}
					continue
				}
				v, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
				if err == nil && v > 0 && v < 1<<62 && (best == 0 || v < best) { // not "max", nor v1's "unlimited"
					best = v
				}
				if dir == mount {
					break
				}
			}
		}
	}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		switch {
		case parts[0] == "0" && parts[1] == "":
			try("/sys/fs/cgroup", parts[2], "memory.max")
		case strings.Contains(","+parts[1]+",", ",memory,"):
			try("/sys/fs/cgroup/memory", parts[2], "memory.limit_in_bytes")
		}
	}
	return best
}
