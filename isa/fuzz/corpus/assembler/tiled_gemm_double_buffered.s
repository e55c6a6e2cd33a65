# Tiled GEMM, double buffered: C[128, 2048] (fp32) = A^T B with A [256, 128] and B [256, 2048] in bf16.
#
# The contraction K = 256 is split into two 128-row tiles accumulated in PSUM; the N = 2048 columns into
# four 512-column tiles (one PSUM bank of fp32 each). Four queues run concurrently:
#   dma0  loads the two A tiles once, then the eight B tiles into two alternating SBUF buffers;
#   pe    multiplies each B tile against the A tile of its K slice into one of two PSUM banks;
#   act   evacuates each finished PSUM bank into one of two SBUF output buffers;
#   dma1  stores each output buffer to C.
# Semaphores count completed work, so every wait is ">= how many must be done by now":
#   a_loaded   A tiles in SBUF                (dma0 -> pe)
#   b_loaded   B tiles in SBUF                (dma0 -> pe)
#   mm_done    matmuls finished               (pe -> dma0: buffer free again; pe -> act: bank complete)
#   evacuated  PSUM banks copied out          (act -> pe: bank free again; act -> dma1: output ready)
#   stored     output buffers written to C    (dma1 -> act: output buffer free again)
#
# SBUF bytes per partition: A k-tiles at 0 and 256, B buffers at 1024 and 2048, outputs at 4096 and 6144.
# PSUM bytes per partition: banks at 0 and 2048.

.target v2
.cores 1
.meta model "tiled-gemm"
.meta shape "M=128 K=256 N=2048"

.tensor A weight bf16 [256, 128] device 0x0
.tensor B input bf16 [256, 2048] device 0x10000
.tensor C output fp32 [128, 2048] device 0x110000

.sem a_loaded 0
.sem b_loaded 1
.sem mm_done 2
.sem evacuated 3
.sem stored 4

.core 0

# A: both K slices, 128 x 128 each (row stride 128 elements)
dma0 dma_copy dst=bf16 sbuf[0:128] +0 [[1,128]], src=bf16 dram:A +0 [[128,128],[1,128]], signal=a_loaded
dma0 dma_copy dst=bf16 sbuf[0:128] +256 [[1,128]], src=bf16 dram:A +32768 [[128,128],[1,128]], signal=a_loaded

# B: tile t = 2n + k covers rows 128k.. and columns 512n..; buffer t % 2 is free once matmul t-2 finished
dma0 dma_copy dst=bf16 sbuf[0:128] +1024 [[1,512]], src=bf16 dram:B +0 [[2048,128],[1,512]], signal=b_loaded
dma0 dma_copy dst=bf16 sbuf[0:128] +2048 [[1,512]], src=bf16 dram:B +524288 [[2048,128],[1,512]], signal=b_loaded
dma0 dma_copy dst=bf16 sbuf[0:128] +1024 [[1,512]], src=bf16 dram:B +1024 [[2048,128],[1,512]], wait=mm_done>=1, signal=b_loaded
dma0 dma_copy dst=bf16 sbuf[0:128] +2048 [[1,512]], src=bf16 dram:B +525312 [[2048,128],[1,512]], wait=mm_done>=2, signal=b_loaded
dma0 dma_copy dst=bf16 sbuf[0:128] +1024 [[1,512]], src=bf16 dram:B +2048 [[2048,128],[1,512]], wait=mm_done>=3, signal=b_loaded
dma0 dma_copy dst=bf16 sbuf[0:128] +2048 [[1,512]], src=bf16 dram:B +526336 [[2048,128],[1,512]], wait=mm_done>=4, signal=b_loaded
dma0 dma_copy dst=bf16 sbuf[0:128] +1024 [[1,512]], src=bf16 dram:B +3072 [[2048,128],[1,512]], wait=mm_done>=5, signal=b_loaded
dma0 dma_copy dst=bf16 sbuf[0:128] +2048 [[1,512]], src=bf16 dram:B +527360 [[2048,128],[1,512]], wait=mm_done>=6, signal=b_loaded

# Tensor engine: two accumulating matmuls per PSUM bank; a bank is reused once act evacuated it
pe nop wait=a_loaded>=2
pe matmul dst=fp32 psum[0:128] +0 [[1,512]], stationary=bf16 sbuf[0:128] +0 [[1,128]], moving=bf16 sbuf[0:128] +1024 [[1,512]], acc=overwrite, wait=b_loaded>=1, signal=mm_done
pe matmul dst=fp32 psum[0:128] +0 [[1,512]], stationary=bf16 sbuf[0:128] +256 [[1,128]], moving=bf16 sbuf[0:128] +2048 [[1,512]], acc=accumulate, wait=b_loaded>=2, signal=mm_done
pe matmul dst=fp32 psum[0:128] +2048 [[1,512]], stationary=bf16 sbuf[0:128] +0 [[1,128]], moving=bf16 sbuf[0:128] +1024 [[1,512]], acc=overwrite, wait=b_loaded>=3, signal=mm_done
pe matmul dst=fp32 psum[0:128] +2048 [[1,512]], stationary=bf16 sbuf[0:128] +256 [[1,128]], moving=bf16 sbuf[0:128] +2048 [[1,512]], acc=accumulate, wait=b_loaded>=4, signal=mm_done
pe nop wait=evacuated>=1
pe matmul dst=fp32 psum[0:128] +0 [[1,512]], stationary=bf16 sbuf[0:128] +0 [[1,128]], moving=bf16 sbuf[0:128] +1024 [[1,512]], acc=overwrite, wait=b_loaded>=5, signal=mm_done
pe matmul dst=fp32 psum[0:128] +0 [[1,512]], stationary=bf16 sbuf[0:128] +256 [[1,128]], moving=bf16 sbuf[0:128] +2048 [[1,512]], acc=accumulate, wait=b_loaded>=6, signal=mm_done
pe nop wait=evacuated>=2
pe matmul dst=fp32 psum[0:128] +2048 [[1,512]], stationary=bf16 sbuf[0:128] +0 [[1,128]], moving=bf16 sbuf[0:128] +1024 [[1,512]], acc=overwrite, wait=b_loaded>=7, signal=mm_done
pe matmul dst=fp32 psum[0:128] +2048 [[1,512]], stationary=bf16 sbuf[0:128] +256 [[1,128]], moving=bf16 sbuf[0:128] +2048 [[1,512]], acc=accumulate, wait=b_loaded>=8, signal=mm_done

# Scalar engine: PSUM bank n%2 -> output buffer n%2, once both matmuls of column tile n are done
act activation dst=fp32 sbuf[0:128] +4096 [[1,512]], src=fp32 psum[0:128] +0 [[1,512]], func=identity, scale=1, bias=none, reduce_op=none, reduce_dst=none, wait=mm_done>=2, signal=evacuated
act activation dst=fp32 sbuf[0:128] +6144 [[1,512]], src=fp32 psum[0:128] +2048 [[1,512]], func=identity, scale=1, bias=none, reduce_op=none, reduce_dst=none, wait=mm_done>=4, signal=evacuated
act nop wait=stored>=1
act activation dst=fp32 sbuf[0:128] +4096 [[1,512]], src=fp32 psum[0:128] +0 [[1,512]], func=identity, scale=1, bias=none, reduce_op=none, reduce_dst=none, wait=mm_done>=6, signal=evacuated
act nop wait=stored>=2
act activation dst=fp32 sbuf[0:128] +6144 [[1,512]], src=fp32 psum[0:128] +2048 [[1,512]], func=identity, scale=1, bias=none, reduce_op=none, reduce_dst=none, wait=mm_done>=8, signal=evacuated

# Stores: output buffer n%2 -> C columns 512n..
dma1 dma_copy dst=fp32 dram:C +0 [[2048,128],[1,512]], src=fp32 sbuf[0:128] +4096 [[1,512]], wait=evacuated>=1, signal=stored
dma1 dma_copy dst=fp32 dram:C +2048 [[2048,128],[1,512]], src=fp32 sbuf[0:128] +6144 [[1,512]], wait=evacuated>=2, signal=stored
dma1 dma_copy dst=fp32 dram:C +4096 [[2048,128],[1,512]], src=fp32 sbuf[0:128] +4096 [[1,512]], wait=evacuated>=3, signal=stored
dma1 dma_copy dst=fp32 dram:C +6144 [[2048,128],[1,512]], src=fp32 sbuf[0:128] +6144 [[1,512]], wait=evacuated>=4, signal=stored
