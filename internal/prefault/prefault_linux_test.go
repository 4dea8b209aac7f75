package prefault

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"unsafe"
)

// anonymousKB returns the Anonymous: figure of the mapping of this process
// that holds addr (/proc/self/smaps): the memory of it the kernel has given
// pages of its own. A page only read so far maps the shared zero page and
// counts for nothing there.
func anonymousKB(t *testing.T, addr uintptr) int {
	t.Helper()
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		var lo, hi uintptr
		if n, _ := fmt.Sscanf(line, "%x-%x ", &lo, &hi); n == 2 {
			in = lo <= addr && addr < hi
			continue
		}
		if in && strings.HasPrefix(line, "Anonymous:") {
			kb, err := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(line, "Anonymous:"), "kB")))
			if err != nil {
				t.Fatalf("smaps: %q: %v", line, err)
			}
			return kb
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	t.Fatalf("smaps: no mapping holds %#x", addr)
	return 0
}

// Touch gives every page of fresh memory a page of its own, as a write
// does, and changes nothing it holds, in one piece and in halves. A fault
// by reading would leave the mapping's anonymous memory where it was, and
// the array's first writes would then fault again (Touch's doc).
func TestTouchFaultsByWriting(t *testing.T) {
	for _, size := range []int{2 * MinBytes, halvesFrom + 3*pageSize} {
		touchFresh(t, size)
	}
}

// isolated maps size fresh bytes of anonymous memory between two
// inaccessible pages, so that the kernel cannot merge the mapping with a
// neighbour of the same kind (the Go heap, another test's memory) whose
// pages faulted in meanwhile would change its Anonymous: figure.
func isolated(t *testing.T, size int) []byte {
	t.Helper()
	all, err := syscall.Mmap(-1, 0, size+2*pageSize, syscall.PROT_NONE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Munmap(all) })
	if err := syscall.Mprotect(all[pageSize:pageSize+size], syscall.PROT_READ|syscall.PROT_WRITE); err != nil {
		t.Fatal(err)
	}
	return all[pageSize : pageSize+size : pageSize+size]
}

func touchFresh(t *testing.T, size int) {
	mem := isolated(t, size)
	addr := uintptr(unsafe.Pointer(&mem[0]))
	mem[size-1] = 7 // the last page holds something: Touch must keep it
	before := anonymousKB(t, addr)
	s := unsafe.Slice((*uint64)(unsafe.Pointer(&mem[0])), size/8)
	Touch(s)
	after := anonymousKB(t, addr)
	if got := (after - before) * 1024; got < size-pageSize {
		t.Errorf("Touch of %d fresh bytes gave %d bytes of anonymous memory; want all but the page written before", size, got)
	}
	if mem[size-1] != 7 {
		t.Errorf("the last byte is %d after Touch; want 7", mem[size-1])
	}
	for i := 0; i < size-1; i += pageSize {
		if mem[i] != 0 {
			t.Fatalf("byte %d is %d after Touch; want 0", i, mem[i])
		}
	}

	// Below MinBytes, Touch does nothing.
	small := isolated(t, MinBytes/2)
	saddr := uintptr(unsafe.Pointer(&small[0]))
	before = anonymousKB(t, saddr)
	Touch(small)
	if after := anonymousKB(t, saddr); after != before {
		t.Errorf("Touch of %d bytes (below MinBytes) changed the mapping's anonymous memory from %d kB to %d kB", len(small), before, after)
	}
}
