// The pool behind SparseMemory's shared pages: the live pages of the process by contents, so that
// simulated memories holding the same bytes hold them once in the host (sparse_memory.h).
#pragma once

#include <cstdint>
#include <memory>

#include "platform/sparse_memory.h"

namespace nsim::sim {

// A live page holding the SparseMemory::kPageBytes bytes at `bytes`, or a new one holding a copy.
// The page must never be written (a memory copies it before a write).
std::shared_ptr<uint8_t[]> shared_page_with(const uint8_t* bytes);

// Makes each whole page-sized piece of [data, data + size) a page that shared_page_with() finds, so
// that memories writing the same bytes share these instead of copying them; for as long as `owner`,
// which keeps the bytes alive and unchanged, lives or some memory holds a piece. The runtime's load
// lends a program's code, which it then writes to device memory (on every core of a data-parallel
// program): the code takes no host memory beyond the loaded program's own.
void lend_pages(const std::shared_ptr<const void>& owner, const uint8_t* data, uint64_t size);

}  // namespace nsim::sim
