"""Writes the form of XLA's CPU benchmark graph for b/380442861: a while
loop of TRIPS trips whose body recomputes reduce(iota(N) * iota(N)), which
does not depend on the loop. Usage: loop-invariant-graph.py TRIPS N"""
import sys

trips, n = int(sys.argv[1]), int(sys.argv[2])
print(f"""HloModule loop_invariant_reduce, entry_computation_layout={{()->f32[]}}

add {{
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}}

cond {{
  state = (s32[], f32[]) parameter(0)
  i = s32[] get-tuple-element(state), index=0
  n = s32[] constant({trips})
  ROOT more = pred[] compare(i, n), direction=LT
}}

body {{
  state = (s32[], f32[]) parameter(0)
  i = s32[] get-tuple-element(state), index=0
  acc = f32[] get-tuple-element(state), index=1
  iota = f32[{n}]{{0}} iota(), iota_dimension=0
  square = f32[{n}]{{0}} multiply(iota, iota)
  zero = f32[] constant(0)
  sum = f32[] reduce(square, zero), dimensions={{0}}, to_apply=add
  scaled = f32[] multiply(sum, sum)
  next = f32[] maximum(acc, scaled)
  one = s32[] constant(1)
  j = s32[] add(i, one)
  ROOT out = (s32[], f32[]) tuple(j, next)
}}

ENTRY main {{
  i0 = s32[] constant(0)
  a0 = f32[] constant(0)
  init = (s32[], f32[]) tuple(i0, a0)
  loop = (s32[], f32[]) while(init), condition=cond, body=body
  ROOT result = f32[] get-tuple-element(loop), index=1
}}""")
