-- DPoP proofs for the scenario scripts that send them: each proof may be used once, so Python signs a pool ahead of
-- the run (the file named after "--") and each thread takes every threads-th line of it.
local threads_set_up = 0
proofs = {}

-- Runs in the main state; `thread_index` becomes a global of that thread's own state.
setup = function(thread)
  thread:set("thread_index", threads_set_up)
  threads_set_up = threads_set_up + 1
end

load_proofs = function(threads, path)
  local line_number = 0
  for line in io.lines(path) do
    if line_number % threads == thread_index then proofs[#proofs + 1] = line end
    line_number = line_number + 1
  end
end

next_proof = function()
  return table.remove(proofs) or "exhausted"
end
