package main

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestChunkText(t *testing.T) {
	line := strings.Repeat("汉字和English混合的一行文字。", 20) + "\n" // ~760 bytes
	text := strings.Repeat(line, 20)                        // ~15 KB
	chunks := chunkText(cleanText(text), 2000)
	total := 0
	for i, c := range chunks {
		if len(c) > 2000 || !utf8.ValidString(c) {
			t.Errorf("chunk %d: %d bytes, valid UTF-8 %v", i, len(c), utf8.ValidString(c))
		}
		total += len(c)
	}
	if total < len(text)-2000 {
		t.Errorf("chunks hold %d of %d bytes", total, len(text))
	}
	// One line longer than the size is cut at rune boundaries.
	for _, c := range chunkText(strings.Repeat("长", 3000), 1000) {
		if len(c) > 1000 || !utf8.ValidString(c) {
			t.Errorf("cut of a long line: %d bytes, valid %v", len(c), utf8.ValidString(c))
		}
	}
	if han, latin, total := scriptCounts("汉字 abc ，。123"); han != 2 || latin != 3 || total != 5 {
		t.Errorf("scriptCounts = %d %d %d, want 2 3 5", han, latin, total)
	}
}
