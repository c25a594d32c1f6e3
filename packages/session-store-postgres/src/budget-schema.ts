/**
 * The schema step of budgets shared by every gateway (`@keel/provider-health`'s budget rules, in
 * SQL): a row per key, window ("m" the minute, "d" the day) and time slice, and one function that
 * reserves under a per-key transaction lock, so a check is one round trip and two gateways can
 * never both take the last request of a budget. Time is the database's `clock_timestamp()` unless
 * the caller passes a reading (tests).
 *
 * The function mirrors `reserveBudget`: slices that left their window are deleted first; a slice
 * counts while any part of it lies in the window; for each limit set, the wait is 0 when the
 * request fits, else the time until enough of the oldest slices have left; a request larger than a
 * token limit asks only for the whole limit. The longest wait of the limits exhausted is returned.
 */
export function budgetSchemaStatements(s: string): string[] {
  return [
    `CREATE TABLE ${s}.budget_slices (
      key text NOT NULL,
      span char(1) NOT NULL CHECK (span IN ('m', 'd')),
      start_ms bigint NOT NULL,
      requests integer NOT NULL,
      tokens bigint NOT NULL,
      PRIMARY KEY (key, span, start_ms)
    )`,
    `CREATE FUNCTION ${s}.budget_wait(
      p_key text, p_span char(1), p_tokens boolean, p_limit bigint, p_need bigint,
      p_width bigint, p_window bigint, p_now bigint
    ) RETURNS bigint LANGUAGE sql STABLE AS $fn$
      WITH slices AS (
        SELECT start_ms, CASE WHEN p_tokens THEN tokens ELSE requests END AS amount
          FROM ${s}.budget_slices WHERE key = p_key AND span = p_span
      ), ordered AS (
        SELECT start_ms, sum(amount) OVER (ORDER BY start_ms) AS gone,
          sum(amount) OVER () AS used
        FROM slices
      )
      SELECT CASE
        WHEN coalesce((SELECT max(used) FROM ordered), 0) + least(p_need, p_limit) <= p_limit THEN 0
        ELSE coalesce(
          (SELECT greatest(1, start_ms + p_width + p_window - p_now) FROM ordered
            WHERE used - gone + least(p_need, p_limit) <= p_limit ORDER BY start_ms LIMIT 1),
          1)
      END
    $fn$`,
    `CREATE FUNCTION ${s}.budget_reserve(
      p_key text, p_rpm bigint, p_tpm bigint, p_tpd bigint, p_tokens bigint,
      p_minute_ms bigint, p_day_ms bigint, p_now bigint
    ) RETURNS TABLE (now_ms bigint, limit_name text, wait_ms bigint, minute_start bigint, day_start bigint)
    LANGUAGE plpgsql AS $fn$
    DECLARE
      v_now bigint;
      v_mw bigint := greatest(1, ceil(p_minute_ms / 60.0)::bigint);
      v_dw bigint := greatest(1, ceil(p_day_ms / 24.0)::bigint);
      v_need bigint := greatest(0, p_tokens);
      v_wait bigint;
      v_best bigint := 0;
      v_limit text := NULL;
    BEGIN
      PERFORM pg_advisory_xact_lock(hashtextextended('keel.budget:' || p_key, 0));
      -- The time once the lock is held: a call that waited for it decides, and is counted, now.
      v_now := coalesce(p_now, floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint);
      DELETE FROM ${s}.budget_slices WHERE key = p_key AND (
        (span = 'm' AND start_ms + v_mw + p_minute_ms <= v_now) OR
        (span = 'd' AND start_ms + v_dw + p_day_ms <= v_now));
      IF p_rpm IS NOT NULL THEN
        v_wait := ${s}.budget_wait(p_key, 'm', false, p_rpm, 1, v_mw, p_minute_ms, v_now);
        IF v_wait > v_best THEN v_best := v_wait; v_limit := 'rpm'; END IF;
      END IF;
      IF p_tpm IS NOT NULL THEN
        v_wait := ${s}.budget_wait(p_key, 'm', true, p_tpm, v_need, v_mw, p_minute_ms, v_now);
        IF v_wait > v_best THEN v_best := v_wait; v_limit := 'tpm'; END IF;
      END IF;
      IF p_tpd IS NOT NULL THEN
        v_wait := ${s}.budget_wait(p_key, 'd', true, p_tpd, v_need, v_dw, p_day_ms, v_now);
        IF v_wait > v_best THEN v_best := v_wait; v_limit := 'tpd'; END IF;
      END IF;
      IF v_limit IS NOT NULL THEN
        RETURN QUERY SELECT v_now, v_limit, v_best, NULL::bigint, NULL::bigint;
        RETURN;
      END IF;
      INSERT INTO ${s}.budget_slices AS b (key, span, start_ms, requests, tokens)
        VALUES (p_key, 'm', (v_now / v_mw) * v_mw, 1, v_need),
               (p_key, 'd', (v_now / v_dw) * v_dw, 1, v_need)
        ON CONFLICT (key, span, start_ms)
        DO UPDATE SET requests = b.requests + 1, tokens = b.tokens + excluded.tokens;
      RETURN QUERY SELECT v_now, NULL::text, 0::bigint, (v_now / v_mw) * v_mw, (v_now / v_dw) * v_dw;
    END
    $fn$`,
  ];
}

/**
 * Paced `rpm` (`burst`, schema version 8): a row per key holding when the requests granted so far
 * would all have been spaced out, and `budget_reserve` again with the burst as its last argument —
 * `reserveBudget`'s pace check and step, in the same lock and round trip as the window's.
 */
export function budgetPaceStatements(s: string): string[] {
  return [
    `CREATE TABLE ${s}.budget_pace (
      key text PRIMARY KEY,
      pace_at double precision NOT NULL
    )`,
    `DROP FUNCTION ${s}.budget_reserve(text, bigint, bigint, bigint, bigint, bigint, bigint, bigint)`,
    `CREATE FUNCTION ${s}.budget_reserve(
      p_key text, p_rpm bigint, p_tpm bigint, p_tpd bigint, p_tokens bigint,
      p_minute_ms bigint, p_day_ms bigint, p_now bigint, p_burst bigint
    ) RETURNS TABLE (now_ms bigint, limit_name text, wait_ms bigint, minute_start bigint, day_start bigint)
    LANGUAGE plpgsql AS $fn$
    DECLARE
      v_now bigint;
      v_mw bigint := greatest(1, ceil(p_minute_ms / 60.0)::bigint);
      v_dw bigint := greatest(1, ceil(p_day_ms / 24.0)::bigint);
      v_need bigint := greatest(0, p_tokens);
      v_wait bigint;
      v_best bigint := 0;
      v_limit text := NULL;
      v_pace double precision := NULL;
      v_pace_at double precision := NULL;
      v_ahead double precision;
    BEGIN
      PERFORM pg_advisory_xact_lock(hashtextextended('keel.budget:' || p_key, 0));
      -- The time once the lock is held: a call that waited for it decides, and is counted, now.
      v_now := coalesce(p_now, floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint);
      DELETE FROM ${s}.budget_slices WHERE key = p_key AND (
        (span = 'm' AND start_ms + v_mw + p_minute_ms <= v_now) OR
        (span = 'd' AND start_ms + v_dw + p_day_ms <= v_now));
      IF p_rpm IS NOT NULL THEN
        v_wait := ${s}.budget_wait(p_key, 'm', false, p_rpm, 1, v_mw, p_minute_ms, v_now);
        IF p_burst IS NOT NULL THEN
          v_pace := p_minute_ms::double precision / p_rpm::double precision;
          SELECT pace_at INTO v_pace_at FROM ${s}.budget_pace WHERE key = p_key;
          v_ahead := v_pace_at - v_now - (p_burst - 1) * v_pace;
          IF v_ahead > 0 THEN v_wait := greatest(v_wait, 1, ceil(v_ahead)::bigint); END IF;
        END IF;
        IF v_wait > v_best THEN v_best := v_wait; v_limit := 'rpm'; END IF;
      END IF;
      IF p_tpm IS NOT NULL THEN
        v_wait := ${s}.budget_wait(p_key, 'm', true, p_tpm, v_need, v_mw, p_minute_ms, v_now);
        IF v_wait > v_best THEN v_best := v_wait; v_limit := 'tpm'; END IF;
      END IF;
      IF p_tpd IS NOT NULL THEN
        v_wait := ${s}.budget_wait(p_key, 'd', true, p_tpd, v_need, v_dw, p_day_ms, v_now);
        IF v_wait > v_best THEN v_best := v_wait; v_limit := 'tpd'; END IF;
      END IF;
      IF v_limit IS NOT NULL THEN
        RETURN QUERY SELECT v_now, v_limit, v_best, NULL::bigint, NULL::bigint;
        RETURN;
      END IF;
      INSERT INTO ${s}.budget_slices AS b (key, span, start_ms, requests, tokens)
        VALUES (p_key, 'm', (v_now / v_mw) * v_mw, 1, v_need),
               (p_key, 'd', (v_now / v_dw) * v_dw, 1, v_need)
        ON CONFLICT (key, span, start_ms)
        DO UPDATE SET requests = b.requests + 1, tokens = b.tokens + excluded.tokens;
      IF v_pace IS NOT NULL THEN
        INSERT INTO ${s}.budget_pace AS p (key, pace_at) VALUES (p_key, v_now + v_pace)
          ON CONFLICT (key) DO UPDATE SET pace_at = greatest(p.pace_at, v_now) + v_pace;
      END IF;
      RETURN QUERY SELECT v_now, NULL::text, 0::bigint, (v_now / v_mw) * v_mw, (v_now / v_dw) * v_dw;
    END
    $fn$`,
  ];
}

/**
 * Paced `tpm` (`tpmBurst`, schema version 9): the pace row also holds the key's token pace, and
 * `budget_reserve` takes `tpmBurst` as its last argument — `reserveBudget`'s pace checks for both
 * limits (one step `minute / rpm`, tolerance `burst` steps; a token `minute / tpm`, tolerance
 * `tpmBurst` tokens, a request larger than it going once the pace has caught up), in the same lock
 * and round trip as the windows', with the same floating-point steps as the in-memory rules.
 */
export function budgetTokenPaceStatements(s: string): string[] {
  return [
    `ALTER TABLE ${s}.budget_pace
      ALTER COLUMN pace_at DROP NOT NULL,
      ADD COLUMN token_pace_at double precision`,
    `DROP FUNCTION ${s}.budget_reserve(text, bigint, bigint, bigint, bigint, bigint, bigint, bigint, bigint)`,
    `CREATE FUNCTION ${s}.budget_reserve(
      p_key text, p_rpm bigint, p_tpm bigint, p_tpd bigint, p_tokens bigint,
      p_minute_ms bigint, p_day_ms bigint, p_now bigint, p_burst bigint, p_tpm_burst bigint
    ) RETURNS TABLE (now_ms bigint, limit_name text, wait_ms bigint, minute_start bigint, day_start bigint)
    LANGUAGE plpgsql AS $fn$
    DECLARE
      v_now bigint;
      v_mw bigint := greatest(1, ceil(p_minute_ms / 60.0)::bigint);
      v_dw bigint := greatest(1, ceil(p_day_ms / 24.0)::bigint);
      v_need bigint := greatest(0, p_tokens);
      v_wait bigint;
      v_best bigint := 0;
      v_limit text := NULL;
      v_pace double precision := NULL;
      v_token double precision := NULL;
      v_step double precision := NULL;
      v_pace_at double precision := NULL;
      v_token_at double precision := NULL;
      v_ahead double precision;
    BEGIN
      PERFORM pg_advisory_xact_lock(hashtextextended('keel.budget:' || p_key, 0));
      -- The time once the lock is held: a call that waited for it decides, and is counted, now.
      v_now := coalesce(p_now, floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint);
      DELETE FROM ${s}.budget_slices WHERE key = p_key AND (
        (span = 'm' AND start_ms + v_mw + p_minute_ms <= v_now) OR
        (span = 'd' AND start_ms + v_dw + p_day_ms <= v_now));
      IF (p_rpm IS NOT NULL AND p_burst IS NOT NULL) OR (p_tpm IS NOT NULL AND p_tpm_burst IS NOT NULL) THEN
        SELECT pace_at, token_pace_at INTO v_pace_at, v_token_at
          FROM ${s}.budget_pace WHERE key = p_key;
      END IF;
      IF p_rpm IS NOT NULL THEN
        v_wait := ${s}.budget_wait(p_key, 'm', false, p_rpm, 1, v_mw, p_minute_ms, v_now);
        IF p_burst IS NOT NULL THEN
          v_pace := p_minute_ms::double precision / p_rpm::double precision;
          v_ahead := v_pace_at - v_now - greatest(0, p_burst * v_pace - v_pace);
          IF v_ahead > 0 THEN v_wait := greatest(v_wait, 1, ceil(v_ahead)::bigint); END IF;
        END IF;
        IF v_wait > v_best THEN v_best := v_wait; v_limit := 'rpm'; END IF;
      END IF;
      IF p_tpm IS NOT NULL THEN
        v_wait := ${s}.budget_wait(p_key, 'm', true, p_tpm, v_need, v_mw, p_minute_ms, v_now);
        IF p_tpm_burst IS NOT NULL THEN
          v_token := p_minute_ms::double precision / p_tpm::double precision;
          v_step := v_need * v_token;
          v_ahead := v_token_at - v_now - greatest(0, p_tpm_burst * v_token - v_step);
          IF v_ahead > 0 THEN v_wait := greatest(v_wait, 1, ceil(v_ahead)::bigint); END IF;
        END IF;
        IF v_wait > v_best THEN v_best := v_wait; v_limit := 'tpm'; END IF;
      END IF;
      IF p_tpd IS NOT NULL THEN
        v_wait := ${s}.budget_wait(p_key, 'd', true, p_tpd, v_need, v_dw, p_day_ms, v_now);
        IF v_wait > v_best THEN v_best := v_wait; v_limit := 'tpd'; END IF;
      END IF;
      IF v_limit IS NOT NULL THEN
        RETURN QUERY SELECT v_now, v_limit, v_best, NULL::bigint, NULL::bigint;
        RETURN;
      END IF;
      INSERT INTO ${s}.budget_slices AS b (key, span, start_ms, requests, tokens)
        VALUES (p_key, 'm', (v_now / v_mw) * v_mw, 1, v_need),
               (p_key, 'd', (v_now / v_dw) * v_dw, 1, v_need)
        ON CONFLICT (key, span, start_ms)
        DO UPDATE SET requests = b.requests + 1, tokens = b.tokens + excluded.tokens;
      IF v_pace IS NOT NULL OR v_token IS NOT NULL THEN
        INSERT INTO ${s}.budget_pace AS p (key, pace_at, token_pace_at)
          VALUES (p_key, v_now + v_pace, v_now + v_step)
          ON CONFLICT (key) DO UPDATE SET
            pace_at = CASE WHEN v_pace IS NULL THEN p.pace_at
              ELSE greatest(p.pace_at, v_now) + v_pace END,
            token_pace_at = CASE WHEN v_token IS NULL THEN p.token_pace_at
              ELSE greatest(p.token_pace_at, v_now) + v_step END;
      END IF;
      RETURN QUERY SELECT v_now, NULL::text, 0::bigint, (v_now / v_mw) * v_mw, (v_now / v_dw) * v_dw;
    END
    $fn$`,
  ];
}
