package hostmem

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

func TestMemTotal(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	if v, ok := memTotal(write("a", "MemFree: 1 kB\nMemTotal:       24576000 kB\n")); !ok || v != 24576000<<10 {
		t.Fatalf("got %d %v", v, ok)
	}
	for _, bad := range []string{"", "MemTotal: x kB\n", "MemTotal: 5 MB\n", "MemTotal: -3 kB\n"} {
		if v, ok := memTotal(write("b", bad)); ok {
			t.Fatalf("%q: got %d, want not ok", bad, v)
		}
	}
	if v, ok := cgroupLimit(write("c", "max\n")); ok {
		t.Fatalf("max: got %d", v)
	}
	if v, ok := cgroupLimit(write("d", "1073741824\n")); !ok || v != 1<<30 {
		t.Fatalf("limit: got %d %v", v, ok)
	}
	if runtime.GOOS == "linux" {
		if v, ok := Total(); !ok || v < 1<<26 {
			t.Fatalf("this Linux host: %d %v", v, ok)
		}
	}
}
