# The layers of mmsim, lowest first.  A source file may include the headers of its own layer and
# of the layers below it, never of one above (tests/check_layers.cmake checks it; the 'layers'
# test runs it).  model/CMakeLists.txt builds one library per layer from these lists, each linked
# to the one below, so a call upward does not link either.
#
#   engine    the event queue and errors
#   inputs    what a run is given: topology, hardware and kernel profiles, the embedded data;
#             and the least-squares fitting calibrate uses
#   runtime   cache lines and their coherence, and the tasks' primitives on them (runtime.h)
#   locks     the lock kinds and designs, over the runtime (lock.h; lock_*.c are the designs)
#   scenario  the scenario language and its compiler
#   sim       instantiation, the interpreter, the measurement window, sweeps
#   cli       the mmsim program (src/)
#
# Each entry is a file name without its extension; a trailing * matches any ending, so a new
# lock design (model/lock_NAME.c) needs no edit here.
set(MMSIM_LAYERS engine inputs runtime locks scenario sim cli)
set(MMSIM_LAYER_engine engine mm_error)
set(MMSIM_LAYER_inputs topology profile machine builtin fit)
set(MMSIM_LAYER_runtime coherence runtime)
set(MMSIM_LAYER_locks lock lock_*)
set(MMSIM_LAYER_scenario scenario)
set(MMSIM_LAYER_sim sim sim_* sweep)
# src/: every file
set(MMSIM_LAYER_cli *)
