# Layernorm and a masked softmax on one 128-token x 256-feature tile, the two element-wise building
# blocks of a BERT layer, spread over the vector (dve), scalar (act) and gpsimd (pool) engines.
#
# SBUF bytes per partition (one token per partition):
#   x        fp32 [256] at 0       input row
#   stats    fp32 [6]   at 1024    bn_stats output (count, mean, m2 per group)
#   mv       fp32 [2]   at 1056    bn_aggr output: mean, variance
#   rstd     fp32 [1]   at 1064    1 / sqrt(variance + eps)
#   y        fp32 [256] at 2048    normalised row
#   gamma    fp32 [256] at 3072    layernorm scale, the same row on every partition (one DMA)
#   rowmax   fp32 [1]   at 4096
#   negmax   fp32 [1]   at 4100
#   rowsum   fp32 [1]   at 4104
#   rsum     fp32 [1]   at 4108
#   e        fp32 [128] at 5120    exp(scores - max)
#   mask     fp32 [128] at 6144    additive attention mask built from indices
#   idx      int32[128] at 7168

.target v2
.cores 1
.meta model "layernorm-softmax"
.meta seq_len "128"
.meta batch "1"

.tensor x input fp32 [128, 256] device 0x0
# gamma's 256 values: 1, 0.5, 0.75, 0.25 repeated.
.tensor gamma weight fp32 [256] device 0x20000
.data gamma 0000803f0000003f0000403f0000803e0000803f0000003f0000403f0000803e0000803f0000003f0000403f0000803e0000803f0000003f0000403f0000803e0000803f0000003f0000403f0000803e0000803f0000003f0000403f0000803e0000803f0000003f0000403f0000803e0000803f0000003f0000403f0000803e0000803f0000003f0000403f0000803e0000803f0000003f0000403f0000803e0000803f0000003f0000403f0000803e0000803f0000003f0000403f0000803e0000803f0000003f0000403f0000803e0000803f0000003f0000403f0000803e0000803f0000003f0000403f0000803e0000803f0000003f0000403f0000803e0000803f0000003f0000403f0000803e0000803f0000003f0000403f0000803e0000803f0000003f0000403f0000803e0000803f0000003f0000403f0000803e0000803f0000003f0000403f0000803e0000803f0000003f0000403f0000803e0000803f0000003f0000403f0000803e0000803f0000003f0000403f0000803e0000803f0000003f0000403f0000803e0000803f0000003f0000403f0000803e0000803f0000003f0000403f0000803e0000803f0000003f0000403f0000803e0000803f0000003f0000403f0000803e0000803f0000003f0000403f0000803e0000803f0000003f0000403f0000803e0000803f0000003f0000403f0000803e0000803f0000003f0000403f0000803e0000803f0000003f0000403f0000803e0000803f0000003f0000403f0000803e0000803f0000003f0000403f0000803e0000803f0000003f0000403f0000803e0000803f0000003f0000403f0000803e0000803f0000003f0000403f0000803e0000803f0000003f0000403f0000803e0000803f0000003f0000403f0000803e0000803f0000003f0000403f0000803e0000803f0000003f0000403f0000803e0000803f0000003f0000403f0000803e0000803f0000003f0000403f0000803e0000803f0000003f0000403f0000803e0000803f0000003f0000403f0000803e0000803f0000003f0000403f0000803e0000803f0000003f0000403f0000803e0000803f0000003f0000403f0000803e0000803f0000003f0000403f0000803e0000803f0000003f0000403f0000803e0000803f0000003f0000403f0000803e0000803f0000003f0000403f0000803e0000803f0000003f0000403f0000803e0000803f0000003f0000403f0000803e0000803f0000003f0000403f0000803e0000803f0000003f0000403f0000803e0000803f0000003f0000403f0000803e0000803f0000003f0000403f0000803e0000803f0000003f0000403f0000803e0000803f0000003f0000403f0000803e0000803f0000003f0000403f0000803e0000803f0000003f0000403f0000803e
.tensor scores input fp32 [128, 128] device 0x20400
.tensor y output fp32 [128, 256] device 0x30400
.tensor probs output fp32 [128, 128] device 0x50400

.sem loaded 0
.sem stats_ready 1
.sem rstd_ready 2
.sem normalised 3
.sem mask_ready 4
.sem max_ready 5
.sem exp_ready 6
.sem done 7
.sem transposed 8

.core 0
# Inputs: x, gamma's row on every partition (partition stride 0: one 1 KiB descriptor per partition;
# a stride-0 innermost dimension would cost a descriptor per element, 32768 of them), scores.
dma0 dma_copy dst=fp32 sbuf[0:128] +0 [[1,256]], src=fp32 dram:x +0 [[256,128],[1,256]], signal=loaded
dma0 dma_copy dst=fp32 sbuf[0:128] +3072 [[1,256]], src=fp32 dram:gamma +0 [[0,128],[1,256]], signal=loaded
dma0 dma_copy dst=fp32 sbuf[0:128] +8192 [[1,128]], src=fp32 dram:scores +0 [[128,128],[1,128]], signal=loaded

# Layernorm statistics on the vector engine.
dve bn_stats dst=fp32 sbuf[0:128] +1024 [[1,6]], src=fp32 sbuf[0:128] +0 [[1,256]], wait=loaded>=3
dve bn_aggr dst=fp32 sbuf[0:128] +1056 [[1,2]], src=fp32 sbuf[0:128] +1024 [[1,6]], signal=stats_ready
# rstd = rsqrt(var + 1e-12) on the scalar engine (bias would be a per-partition tensor; scale=1).
act tensor_scalar dst=fp32 sbuf[0:128] +1064 [[1,1]], src=fp32 sbuf[0:128] +1060 [[1,1]], op0=add, imm0=1e-12, op1=bypass, imm1=0, wait=stats_ready>=1
act activation dst=fp32 sbuf[0:128] +1064 [[1,1]], src=fp32 sbuf[0:128] +1064 [[1,1]], func=rsqrt, scale=1, bias=none, reduce_op=none, reduce_dst=none, signal=rstd_ready
# y = (x - mean) * rstd * gamma
dve tensor_partition_scalar dst=fp32 sbuf[0:128] +2048 [[1,256]], src=fp32 sbuf[0:128] +0 [[1,256]], op0=subtract, scalar0=fp32 sbuf[0:128] +1056 [[1,1]], op1=multiply, scalar1=fp32 sbuf[0:128] +1064 [[1,1]], wait=rstd_ready>=1
dve tensor_tensor dst=fp32 sbuf[0:128] +2048 [[1,256]], src0=fp32 sbuf[0:128] +2048 [[1,256]], src1=fp32 sbuf[0:128] +3072 [[1,256]], op=multiply, signal=normalised
dma1 dma_copy dst=fp32 dram:y +0 [[256,128],[1,256]], src=fp32 sbuf[0:128] +2048 [[1,256]], wait=normalised>=1, signal=done

# Mask on gpsimd: keep key columns i <= 100 (a padded sequence), else add -10000.
pool iota dst=int32 sbuf[0:128] +7168 [[1,128]], base=0, partition_step=0, free_step=1
pool memset dst=fp32 sbuf[0:128] +6144 [[1,128]], value=0
pool affine_select dst=fp32 sbuf[0:128] +6144 [[1,128]], src=fp32 sbuf[0:128] +6144 [[1,128]], cmp=is_ge, base=100, partition_step=0, free_step=-1, fill=-10000, signal=mask_ready
# softmax(scores + mask) along the free axis.
dve tensor_tensor dst=fp32 sbuf[0:128] +8192 [[1,128]], src0=fp32 sbuf[0:128] +8192 [[1,128]], src1=fp32 sbuf[0:128] +6144 [[1,128]], op=add, wait=mask_ready>=1
dve tensor_reduce dst=fp32 sbuf[0:128] +4096 [[1,1]], src=fp32 sbuf[0:128] +8192 [[1,128]], op=max
dve tensor_scalar dst=fp32 sbuf[0:128] +4100 [[1,1]], src=fp32 sbuf[0:128] +4096 [[1,1]], op0=multiply, imm0=-1, op1=bypass, imm1=0, signal=max_ready
act activation dst=fp32 sbuf[0:128] +5120 [[1,128]], src=fp32 sbuf[0:128] +8192 [[1,128]], func=exp, scale=1, bias=fp32 sbuf[0:128] +4100 [[1,1]], reduce_op=add, reduce_dst=fp32 sbuf[0:128] +4104 [[1,1]], wait=max_ready>=1
act activation dst=fp32 sbuf[0:128] +4108 [[1,1]], src=fp32 sbuf[0:128] +4104 [[1,1]], func=reciprocal, scale=1, bias=none, reduce_op=none, reduce_dst=none
act tensor_scalar dst=fp32 sbuf[0:128] +5120 [[1,128]], src=fp32 sbuf[0:128] +5120 [[1,128]], op0=bypass, imm0=0, op1=bypass, imm1=0, signal=exp_ready
dve tensor_partition_scalar dst=fp32 sbuf[0:128] +5120 [[1,128]], src=fp32 sbuf[0:128] +5120 [[1,128]], op0=multiply, scalar0=fp32 sbuf[0:128] +4108 [[1,1]], op1=bypass, scalar1=none, wait=exp_ready>=1
dve select dst=fp32 sbuf[0:128] +5120 [[1,128]], predicate=fp32 sbuf[0:128] +5120 [[1,128]], on_true=fp32 sbuf[0:128] +5120 [[1,128]], on_false=fp32 sbuf[0:128] +6144 [[1,128]]
dve tensor_copy dst=fp32 sbuf[0:128] +5120 [[1,128]], src=fp32 sbuf[0:128] +5120 [[1,128]], signal=done
dma1 dma_copy dst=fp32 dram:probs +0 [[128,128],[1,128]], src=fp32 sbuf[0:128] +5120 [[1,128]], wait=done>=2, signal=done

# Column sums across partitions, a 128x128 transpose through the tensor engine and its PSUM evacuation,
# and the remaining activation functions, so every opcode appears in an example.
pool partition_reduce dst=fp32 sbuf[0:1] +12288 [[1,128]], src=fp32 sbuf[0:128] +5120 [[1,128]], op=add, wait=done>=3
pe transpose dst=fp32 psum[0:128] +0 [[1,128]], src=fp32 sbuf[0:128] +5120 [[1,128]], wait=done>=3, signal=transposed
act activation dst=fp32 sbuf[0:128] +9216 [[1,128]], src=fp32 psum[0:128] +0 [[1,128]], func=gelu, scale=1, bias=none, reduce_op=max, reduce_dst=fp32 sbuf[0:128] +9728 [[1,1]], wait=transposed>=1
act activation dst=bf16 sbuf[0:128] +10240 [[1,128]], src=fp32 sbuf[0:128] +9216 [[1,128]], func=gelu_tanh, scale=0.5, bias=none, reduce_op=none, reduce_dst=none
act activation dst=fp32 sbuf[0:128] +9216 [[1,128]], src=fp32 sbuf[0:128] +9216 [[1,128]], func=tanh, scale=1, bias=none, reduce_op=none, reduce_dst=none
act activation dst=fp32 sbuf[0:128] +9216 [[1,128]], src=fp32 sbuf[0:128] +9216 [[1,128]], func=sigmoid, scale=1, bias=none, reduce_op=none, reduce_dst=none
act activation dst=fp32 sbuf[0:128] +9216 [[1,128]], src=fp32 sbuf[0:128] +9216 [[1,128]], func=square, scale=1, bias=none, reduce_op=none, reduce_dst=none
act activation dst=fp32 sbuf[0:128] +9216 [[1,128]], src=fp32 sbuf[0:128] +9216 [[1,128]], func=relu, scale=1, bias=none, reduce_op=none, reduce_dst=none
