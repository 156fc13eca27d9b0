#pragma once
// What a process keeps mapped of its own files: the pages of its read-only
// file mappings it may drop (the kernel maps them back from the file when
// they are used), and its high-water mark. The launcher keeps its share of
// every command's peak RSS small with them (docs/design.md, Peak RSS and
// its floor).

#include <cstdint>
#include <utility>
#include <vector>

namespace refbench::process {

// Address ranges [start, end), page-aligned.
using PageRanges = std::vector<std::pair<std::uintptr_t, std::uintptr_t>>;

// The pages of this process's private read-only file mappings (the
// executable's text, its read-only and relocated read-only data; a
// library's) that it did not write: a page it wrote (a relocation) is its
// own copy, not the file's, and is never among them. Read from
// /proc/self/maps and /proc/self/pagemap: a read-only mapping gains no
// written page, so they hold for good. Empty when /proc cannot tell.
struct ReleasablePages {
  PageRanges text; // executable mappings
  PageRanges data; // the others
};
ReleasablePages releasable_pages();

// Drops `ranges` from this process's page tables (MADV_DONTNEED); only for
// pages of releasable_pages, which the kernel maps back unchanged.
void release(const PageRanges& ranges);

// The pages of `ranges` this process has mapped now (/proc/self/pagemap);
// none when it cannot tell.
PageRanges mapped_pages(const PageRanges& ranges);

// Maps `ranges`, pages of releasable_pages, back by reading a byte of each.
void map_back(const PageRanges& ranges);

// Resets this process's high-water mark (VmHWM) to what it holds now
// (/proc/self/clear_refs); nothing when the kernel refuses.
void reset_peak_rss();

} // namespace refbench::process
