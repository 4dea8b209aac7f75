package reports

import "testing"

// BenchmarkWriterWrite is what writing one row of a small trial costs
// (issue 42): results.csv's line and its write.
func BenchmarkWriterWrite(b *testing.B) {
	w, err := NewWriter(b.TempDir(), []string{"csv"}, WriterOptions{})
	if err != nil {
		b.Fatal(err)
	}
	rows := sampleRows()
	b.ReportAllocs()
	for i := range b.N {
		if err := w.Write(rows[i%len(rows)]); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}
