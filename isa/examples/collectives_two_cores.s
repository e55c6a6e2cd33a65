# Two cores of a data-parallel step: each computes a partial result, the cores all-reduce it,
# gather every core's copy (each core receives the whole [2, 128, 64] `gathered`), scatter shards,
# pass an activation from core 0 to core 1 (pipeline style), and meet at a barrier. The sync
# engine (sp) re-arms a semaphore for a next iteration.

.target v2
.cores 2
.meta model "collectives-demo"

.tensor grad scratch fp32 [2, 128, 64] device 0x0
.tensor gathered scratch fp32 [2, 128, 64] device 0x10000
.tensor shard scratch fp32 [64, 64] device 0x20000
.tensor act_out weight bf16 [128, 64] device 0x30000
.tensor host_in input fp32 [128, 64] host 0x0
.tensor host_out output fp32 [128, 64] host 0x8000

.sem ready 0
.sem reduced 1
.sem passed 2
.sem copied 3

.core 0
dma0 dma_copy dst=fp32 sbuf[0:128] +0 [[1,64]], src=fp32 host:host_in +0 [[64,128],[1,64]], signal=ready
dma0 all_reduce dst=fp32 dram:grad +0 [[64,128],[1,64]], src=fp32 sbuf[0:128] +0 [[1,64]], op=add, first_core=0, core_count=2, wait=ready>=1, signal=reduced
dma0 all_gather dst=fp32 dram:gathered +0 [[64,256],[1,64]], src=fp32 dram:grad +0 [[64,128],[1,64]], first_core=0, core_count=2, wait=reduced>=1
dma0 reduce_scatter dst=fp32 dram:shard +0 [[64,64],[1,64]], src=fp32 dram:gathered +0 [[64,128],[1,64]], op=max, first_core=0, core_count=2
dma1 send src=bf16 dram:act_out +0 [[64,128],[1,64]], peer_core=1, channel=0, wait=reduced>=1, signal=passed
sp barrier first_core=0, core_count=2, wait=passed>=1
sp sem_set sem=ready, value=0

.core 1
dma0 dma_copy dst=fp32 sbuf[0:128] +0 [[1,64]], src=fp32 host:host_in +0 [[64,128],[1,64]], signal=ready
dma0 all_reduce dst=fp32 dram:grad +32768 [[64,128],[1,64]], src=fp32 sbuf[0:128] +0 [[1,64]], op=add, first_core=0, core_count=2, wait=ready>=1, signal=reduced
dma0 all_gather dst=fp32 dram:gathered +0 [[64,256],[1,64]], src=fp32 dram:grad +32768 [[64,128],[1,64]], first_core=0, core_count=2, wait=reduced>=1
dma0 reduce_scatter dst=fp32 dram:shard +0 [[64,64],[1,64]], src=fp32 dram:gathered +32768 [[64,128],[1,64]], op=max, first_core=0, core_count=2
dma1 recv dst=bf16 sbuf[0:128] +1024 [[1,64]], peer_core=0, channel=0, signal=passed
dve tensor_copy dst=fp32 sbuf[0:128] +2048 [[1,64]], src=bf16 sbuf[0:128] +1024 [[1,64]], wait=passed>=1, signal=copied
dma1 dma_copy dst=fp32 host:host_out +0 [[64,128],[1,64]], src=fp32 sbuf[0:128] +2048 [[1,64]], wait=copied>=1
sp barrier first_core=0, core_count=2, wait=passed>=1
sp sem_set sem=$7, value=0
