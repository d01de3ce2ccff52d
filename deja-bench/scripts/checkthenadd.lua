-- wrk script: GET /checkthenadd?e=<300-byte key>, a fresh random key per request.
-- Optional argument (after "--" on wrk's command line): how many requests each connection sends before it reads
-- the answers (HTTP/1.1 pipelining); 1, the default, is one request per round trip.
-- seeded by the clock so that a second run (after a warm-up) sends keys the first did not
math.randomseed(os.time())
local chars = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
local prefix = ""
for i = 1, 288 do
  local c = math.random(1, #chars)
  prefix = prefix .. chars:sub(c, c)
end
local n = 0
local depth = 1
setup = function(thread)
  thread:set("id", math.random(1, 1000000))
end
init = function(args)
  depth = tonumber(args[1] or "1")
end
local one = function()
  n = n + 1
  return wrk.format("GET", "/checkthenadd?e=" .. prefix .. string.format("%012d", n * 1000 + (id or 0) % 1000))
end
request = function()
  if depth == 1 then
    return one()
  end
  local batch = {}
  for i = 1, depth do
    batch[i] = one()
  end
  return table.concat(batch)
end
