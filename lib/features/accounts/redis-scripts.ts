/**
 * The Lua scripts of the Redis account store (./redis-store.ts). Constants: nothing of a request is
 * ever part of a script, only of its KEYS and ARGV. Each touches the keys of one hash slot: one
 * user's keys (KEYS: user, ways, pending, factors, codes, all tagged `{u:<hash of the id>}`), or
 * one claim. The second factors' scripts are in ./redis-factor-scripts.ts.
 */

/** A new user and its first account, pending; 0 when the id is taken. Leftovers under the id go. */
export const CREATE = `if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('DEL', KEYS[2], KEYS[3], KEYS[4], KEYS[5])
redis.call('SET', KEYS[1], ARGV[1])
if ARGV[2] ~= '' then redis.call('HSET', KEYS[3], ARGV[2], ARGV[3]) end
return 1`

/** A pending account for an existing user: 0 no such user, -1 an account with this id exists, 1 kept. */
export const LINK = `if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
if redis.call('HEXISTS', KEYS[2], ARGV[1]) == 1 or redis.call('HEXISTS', KEYS[3], ARGV[1]) == 1 then return -1 end
redis.call('HSET', KEYS[3], ARGV[1], ARGV[2])
return 1`

/**
 * A pending account whose claim was won becomes one of the user's ways in (KEYS: ways, pending).
 * The account as it now stands, or nil when the user has no such account (deleted meanwhile).
 */
export const SETTLE = `local account = redis.call('HGET', KEYS[2], ARGV[1])
if account then
  redis.call('HSET', KEYS[1], ARGV[1], account)
  redis.call('HDEL', KEYS[2], ARGV[1])
  return account
end
return redis.call('HGET', KEYS[1], ARGV[1])`

/**
 * Removes a way in unless it is the user's last (KEYS: ways; ARGV: the account's id, the ways kept
 * elsewhere): {0} no such account, {1} the last, {2, account} removed. One script, so that two
 * unlinks of one user never both see the other's account still there.
 */
export const UNLINK = `local account = redis.call('HGET', KEYS[1], ARGV[1])
if not account then return {0} end
if redis.call('HLEN', KEYS[1]) - 1 + tonumber(ARGV[2]) < 1 then return {1} end
redis.call('HDEL', KEYS[1], ARGV[1])
return {2, account}`

/** Replaces a field's value only when it is still `ARGV[2]`: a touch never brings back an unlinked account. */
export const REPLACE_FIELD = `if redis.call('HGET', KEYS[1], ARGV[1]) == ARGV[2] then
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
  return 1
end
return 0`

/**
 * Deletes a user's keys, their second factors' included: {} when there was no user, else the user
 * and every account, pending ones too.
 */
export const DELETE = `local user = redis.call('GET', KEYS[1])
if not user then
  redis.call('DEL', KEYS[2], KEYS[3], KEYS[4], KEYS[5])
  return {}
end
local found = {user}
for _, account in ipairs(redis.call('HVALS', KEYS[2])) do found[#found + 1] = account end
for _, account in ipairs(redis.call('HVALS', KEYS[3])) do found[#found + 1] = account end
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5])
return found`

/** Takes over a claim that still holds `ARGV[1]` (one found to point to nothing). */
export const TAKE_OVER = `if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[2])
  return 1
end
return 0`

/** Releases a claim only when it is still `ARGV[1]`: never one that another user has taken since. */
export const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`
