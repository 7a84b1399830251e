/**
 * The Lua scripts of the second factors in the Redis account store (./redis-factors.ts), each on
 * one user's keys (one hash slot). KEYS: the user's `factors` hash (per factor `f:<id>` its record,
 * `on:<id>` once enabled, `used:<id>` when last used, `step:<id>` the TOTP step it spent last), and
 * its `codes` hash (one field per unused recovery code: `[factor id, code hash]` as JSON). A step
 * or a code is spent inside one script, so that of concurrent calls exactly one sees it unspent.
 */

/** The type of the factor whose record is the field `ARGV[1]` of KEYS[1], or nil (none, or not ours). */
const FACTOR_TYPE = `local function factorType()
  local record = redis.call('HGET', KEYS[1], ARGV[1])
  if not record then return nil end
  local ok, factor = pcall(cjson.decode, record)
  if ok and type(factor) == 'table' then return factor.type end
  return nil
end
`

/** Deletes the codes of one factor: the fields of KEYS[2] that start with `prefix` (compared as text, no pattern). */
const DROP_CODES = `local function dropCodes(prefix)
  for _, field in ipairs(redis.call('HKEYS', KEYS[2])) do
    if string.sub(field, 1, #prefix) == prefix then redis.call('HDEL', KEYS[2], field) end
  end
end
`

/**
 * A new factor of an existing user (KEYS: user, factors, codes; ARGV: its four fields, the record,
 * enabled '1' or '', last used or '', then its codes' fields): 0 no such user, -1 the id is taken, 1 kept.
 */
export const ADD_FACTOR = `if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
if redis.call('HEXISTS', KEYS[2], ARGV[1]) == 1 then return -1 end
redis.call('HDEL', KEYS[2], ARGV[2], ARGV[3], ARGV[4])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[5])
if ARGV[6] ~= '' then redis.call('HSET', KEYS[2], ARGV[2], ARGV[6]) end
if ARGV[7] ~= '' then redis.call('HSET', KEYS[2], ARGV[3], ARGV[7]) end
for i = 8, #ARGV do redis.call('HSET', KEYS[3], ARGV[i], '1') end
return 1`

/** Every field of the user's factors, and the fields of their unused codes (KEYS: factors, codes). */
export const LIST_FACTORS = `return {redis.call('HGETALL', KEYS[1]), redis.call('HKEYS', KEYS[2])}`

/** Marks a factor enabled (KEYS: factors; ARGV: record field, `on` field): 0 no such factor. */
export const ENABLE_FACTOR = `if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], ARGV[2], '1')
return 1`

/** Removes a factor, its state and its codes (KEYS: factors, codes; ARGV: its four fields, its codes' prefix). */
export const REMOVE_FACTOR = `${DROP_CODES}if redis.call('HDEL', KEYS[1], ARGV[1]) == 0 then return 0 end
redis.call('HDEL', KEYS[1], ARGV[2], ARGV[3], ARGV[4])
dropCodes(ARGV[5])
return 1`

/**
 * Spends a TOTP step (KEYS: factors; ARGV: record field, `step` field, `used` field, the step, now):
 * 1 when it is greater than the step spent last (which anything but a number there refuses), else 0.
 */
export const SPEND_STEP = `${FACTOR_TYPE}if factorType() ~= 'totp' then return 0 end
local last = redis.call('HGET', KEYS[1], ARGV[2])
if last and not (tonumber(last) and tonumber(ARGV[4]) > tonumber(last)) then return 0 end
redis.call('HSET', KEYS[1], ARGV[2], ARGV[4])
redis.call('HSET', KEYS[1], ARGV[3], ARGV[5])
return 1`

/** Spends a recovery code (KEYS: factors, codes; ARGV: record field, `used` field, the code's field, now): 1 or 0. */
export const SPEND_CODE = `${FACTOR_TYPE}if factorType() ~= 'recovery' then return 0 end
if redis.call('HDEL', KEYS[2], ARGV[3]) == 0 then return 0 end
redis.call('HSET', KEYS[1], ARGV[2], ARGV[4])
return 1`

/** New codes for a recovery factor, the old ones gone (KEYS: factors, codes; ARGV: record field, codes' prefix, new codes' fields). */
export const REPLACE_CODES = `${FACTOR_TYPE}${DROP_CODES}if factorType() ~= 'recovery' then return 0 end
dropCodes(ARGV[2])
for i = 3, #ARGV do redis.call('HSET', KEYS[2], ARGV[i], '1') end
return 1`
