-- wrk script: GET /checkthenadd?e=<300-byte key>, a fresh random key per request.
-- seeded by the clock so that a second run (after a warm-up) sends keys the first did not
math.randomseed(os.time())
local chars = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
local prefix = ""
for i = 1, 288 do
  local c = math.random(1, #chars)
  prefix = prefix .. chars:sub(c, c)
end
local n = 0
setup = function(thread)
  thread:set("id", math.random(1, 1000000))
end
request = function()
  n = n + 1
  return wrk.format("GET", "/checkthenadd?e=" .. prefix .. string.format("%012d", n * 1000 + (id or 0) % 1000))
end
