--
-- PostgreSQL database dump
--

\restrict rWYdymgQVHyeR1E0PBOA6s9uobX93BMvFTrezdOfRAPQExB53qiRkhlmIt4bboy

-- Dumped from database version 15.20 (Debian 15.20-0+deb12u1)
-- Dumped by pg_dump version 15.20 (Debian 15.20-0+deb12u1)

SET statement_timeout = 0;
SET lock_timeout = 0;
SET idle_in_transaction_session_timeout = 0;
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
SELECT pg_catalog.set_config('search_path', '', false);
SET check_function_bodies = false;
SET xmloption = content;
SET client_min_messages = warning;
SET row_security = off;

--
-- Name: count_deleted_rules(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.count_deleted_rules() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO '$user', 'public'
    AS $$
BEGIN
	UPDATE rule_counts c SET n = c.n - d.n
		FROM (SELECT project_id, count(*) AS n FROM deleted_rules GROUP BY project_id) d
		WHERE c.project_id = d.project_id;
	RETURN NULL;
END
$$;


--
-- Name: count_inserted_rules(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.count_inserted_rules() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO '$user', 'public'
    AS $$
BEGIN
	INSERT INTO rule_counts (project_id, n)
		SELECT project_id, count(*) FROM inserted_rules GROUP BY project_id
		ON CONFLICT (project_id) DO UPDATE SET n = rule_counts.n + excluded.n;
	RETURN NULL;
END
$$;


--
-- Name: delete_project_rules(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.delete_project_rules() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO '$user', 'public'
    AS $$
BEGIN
	DELETE FROM rules WHERE project_id = OLD.id;
	DELETE FROM rule_counts WHERE project_id = OLD.id;
	RETURN OLD;
END
$$;


SET default_tablespace = '';

SET default_table_access_method = heap;

--
-- Name: audit_log; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.audit_log (
    id bigint NOT NULL,
    at bigint NOT NULL,
    org_id text NOT NULL,
    project_id text NOT NULL,
    actor_kind text NOT NULL,
    actor_id text NOT NULL,
    actor_label text NOT NULL,
    remote_addr text NOT NULL,
    action text NOT NULL,
    object_type text NOT NULL,
    object_id text NOT NULL,
    before text,
    after text,
    CONSTRAINT audit_log_actor_kind_check CHECK ((actor_kind = ANY (ARRAY['cli'::text, 'user'::text, 'token'::text, 'system'::text])))
);


--
-- Name: audit_log_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.audit_log_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: audit_log_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.audit_log_id_seq OWNED BY public.audit_log.id;


--
-- Name: deployment_exports; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.deployment_exports (
    project_id text NOT NULL,
    version integer NOT NULL,
    format text NOT NULL,
    body bytea NOT NULL,
    etag text NOT NULL,
    coding text DEFAULT 'identity'::text NOT NULL,
    gzip bytea,
    CONSTRAINT deployment_exports_coding_check CHECK ((coding = ANY (ARRAY['identity'::text, 'zstd'::text])))
);
ALTER TABLE ONLY public.deployment_exports ALTER COLUMN body SET STORAGE EXTERNAL;
ALTER TABLE ONLY public.deployment_exports ALTER COLUMN body SET COMPRESSION lz4;
ALTER TABLE ONLY public.deployment_exports ALTER COLUMN gzip SET STORAGE EXTERNAL;


--
-- Name: deployments; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.deployments (
    project_id text NOT NULL,
    version integer NOT NULL,
    created_at bigint NOT NULL,
    message text NOT NULL,
    from_version integer NOT NULL,
    exact_count integer NOT NULL,
    prefix_count integer NOT NULL,
    report text NOT NULL,
    rules bytea NOT NULL,
    CONSTRAINT deployments_version_check CHECK ((version >= 1))
);
ALTER TABLE ONLY public.deployments ALTER COLUMN rules SET COMPRESSION lz4;


--
-- Name: events; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.events (
    id bigint NOT NULL,
    kind text NOT NULL,
    org_id text NOT NULL,
    project_id text NOT NULL,
    version integer NOT NULL,
    created_at bigint NOT NULL
);


--
-- Name: events_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.events_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: events_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.events_id_seq OWNED BY public.events.id;


--
-- Name: keys; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.keys (
    id text NOT NULL,
    seq bigint NOT NULL,
    project_id text NOT NULL,
    name text NOT NULL,
    test boolean NOT NULL,
    hash text NOT NULL,
    last4 text NOT NULL,
    created_at bigint NOT NULL,
    revoked_at bigint
);


--
-- Name: keys_seq_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.keys_seq_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: keys_seq_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.keys_seq_seq OWNED BY public.keys.seq;


--
-- Name: management_tokens; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.management_tokens (
    id text NOT NULL,
    seq bigint NOT NULL,
    org_id text NOT NULL,
    role text NOT NULL,
    label text NOT NULL,
    hash text NOT NULL,
    last4 text NOT NULL,
    created_by text,
    created_at bigint NOT NULL,
    expires_at bigint,
    last_used_at bigint,
    revoked_at bigint,
    CONSTRAINT management_tokens_role_check CHECK ((role = ANY (ARRAY['owner'::text, 'editor'::text, 'viewer'::text])))
);


--
-- Name: management_tokens_seq_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.management_tokens_seq_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: management_tokens_seq_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.management_tokens_seq_seq OWNED BY public.management_tokens.seq;


--
-- Name: members; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.members (
    org_id text NOT NULL,
    user_id text NOT NULL,
    seq bigint NOT NULL,
    role text NOT NULL,
    created_at bigint NOT NULL,
    CONSTRAINT members_role_check CHECK ((role = ANY (ARRAY['owner'::text, 'editor'::text, 'viewer'::text])))
);


--
-- Name: members_seq_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.members_seq_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: members_seq_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.members_seq_seq OWNED BY public.members.seq;


--
-- Name: misses; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.misses (
    project_id text NOT NULL,
    path text NOT NULL COLLATE pg_catalog."C",
    count bigint NOT NULL,
    first_seen bigint NOT NULL,
    last_seen bigint NOT NULL
);


--
-- Name: orgs; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.orgs (
    id text NOT NULL,
    seq bigint NOT NULL,
    name text NOT NULL,
    tier text NOT NULL,
    rate_limit_override bigint,
    quota_override bigint,
    created_at bigint NOT NULL,
    CONSTRAINT orgs_quota_override_check CHECK ((quota_override >= '-1'::integer)),
    CONSTRAINT orgs_rate_limit_override_check CHECK ((rate_limit_override >= '-1'::integer)),
    CONSTRAINT orgs_tier_check CHECK ((tier = ANY (ARRAY['free'::text, 'pro'::text, 'enterprise'::text])))
);


--
-- Name: orgs_seq_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.orgs_seq_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: orgs_seq_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.orgs_seq_seq OWNED BY public.orgs.seq;


--
-- Name: project_tests; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.project_tests (
    project_id text NOT NULL,
    body text NOT NULL
);


--
-- Name: projects; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.projects (
    id text NOT NULL,
    seq bigint NOT NULL,
    org_id text NOT NULL,
    name text NOT NULL,
    created_at bigint NOT NULL,
    export_retention integer DEFAULT 20 NOT NULL,
    shrink_limit integer DEFAULT 10 NOT NULL,
    hosts text DEFAULT ''::text NOT NULL,
    CONSTRAINT projects_export_retention_check CHECK ((export_retention >= 1)),
    CONSTRAINT projects_shrink_limit_check CHECK (((shrink_limit >= 0) AND (shrink_limit <= 100)))
);


--
-- Name: projects_seq_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.projects_seq_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: projects_seq_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.projects_seq_seq OWNED BY public.projects.seq;


--
-- Name: rule_counts; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.rule_counts (
    project_id text NOT NULL,
    n bigint NOT NULL
);


--
-- Name: rule_hits; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.rule_hits (
    project_id text NOT NULL,
    match_type text NOT NULL COLLATE pg_catalog."C",
    source text NOT NULL COLLATE pg_catalog."C",
    hits bigint NOT NULL,
    last_hit bigint NOT NULL,
    CONSTRAINT rule_hits_match_type_check CHECK ((match_type = ANY (ARRAY['exact'::text, 'starts_with'::text])))
);


--
-- Name: rules; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.rules (
    id bigint NOT NULL,
    project_id text NOT NULL,
    match_type text NOT NULL COLLATE pg_catalog."C",
    source text NOT NULL COLLATE pg_catalog."C",
    destination text NOT NULL,
    status_code integer NOT NULL,
    priority integer NOT NULL,
    created_at bigint NOT NULL,
    revision bigint DEFAULT 1 NOT NULL,
    CONSTRAINT rules_match_type_check CHECK ((match_type = ANY (ARRAY['exact'::text, 'starts_with'::text]))),
    CONSTRAINT rules_revision_check CHECK ((revision >= 1)),
    CONSTRAINT rules_status_code_check CHECK ((status_code = ANY (ARRAY[301, 302])))
);


--
-- Name: rules_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.rules_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: rules_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.rules_id_seq OWNED BY public.rules.id;


--
-- Name: schema_migrations; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.schema_migrations (
    version integer NOT NULL,
    name text NOT NULL,
    applied_at bigint NOT NULL,
    checksum text DEFAULT ''::text NOT NULL
);


--
-- Name: sessions; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.sessions (
    id text NOT NULL,
    hash text NOT NULL,
    user_id text NOT NULL,
    csrf_token text NOT NULL,
    created_at bigint NOT NULL,
    expires_at bigint NOT NULL,
    last_seen_at bigint NOT NULL
);


--
-- Name: usage; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.usage (
    org_id text NOT NULL,
    period text NOT NULL,
    count bigint NOT NULL
);


--
-- Name: usage_daily; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.usage_daily (
    org_id text NOT NULL,
    day text NOT NULL,
    key_id text NOT NULL,
    count bigint NOT NULL
);


--
-- Name: users; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.users (
    id text NOT NULL,
    seq bigint NOT NULL,
    email text NOT NULL,
    password_hash text NOT NULL,
    operator boolean NOT NULL,
    created_at bigint NOT NULL,
    disabled_at bigint
);


--
-- Name: users_seq_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.users_seq_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: users_seq_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.users_seq_seq OWNED BY public.users.seq;


--
-- Name: audit_log id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.audit_log ALTER COLUMN id SET DEFAULT nextval('public.audit_log_id_seq'::regclass);


--
-- Name: events id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.events ALTER COLUMN id SET DEFAULT nextval('public.events_id_seq'::regclass);


--
-- Name: keys seq; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.keys ALTER COLUMN seq SET DEFAULT nextval('public.keys_seq_seq'::regclass);


--
-- Name: management_tokens seq; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.management_tokens ALTER COLUMN seq SET DEFAULT nextval('public.management_tokens_seq_seq'::regclass);


--
-- Name: members seq; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.members ALTER COLUMN seq SET DEFAULT nextval('public.members_seq_seq'::regclass);


--
-- Name: orgs seq; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.orgs ALTER COLUMN seq SET DEFAULT nextval('public.orgs_seq_seq'::regclass);


--
-- Name: projects seq; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.projects ALTER COLUMN seq SET DEFAULT nextval('public.projects_seq_seq'::regclass);


--
-- Name: rules id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.rules ALTER COLUMN id SET DEFAULT nextval('public.rules_id_seq'::regclass);


--
-- Name: users seq; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.users ALTER COLUMN seq SET DEFAULT nextval('public.users_seq_seq'::regclass);


--
-- Data for Name: audit_log; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.audit_log VALUES (1, 1772442002000000000, 'org_no9ulNNtcytaF35u', '', 'cli', 'fixture', 'fixture', '', 'org.create', 'org', 'org_no9ulNNtcytaF35u', NULL, '{"name":"acme","quotaOverride":null,"rateLimitOverride":null,"tier":"enterprise"}');
INSERT INTO public.audit_log VALUES (2, 1772442004000000000, 'org_BP8mwjSpnKH5e1QU', '', 'cli', 'fixture', 'fixture', '', 'org.create', 'org', 'org_BP8mwjSpnKH5e1QU', NULL, '{"name":"globex","quotaOverride":"5000","rateLimitOverride":null,"tier":"pro"}');
INSERT INTO public.audit_log VALUES (3, 1772442005000000000, 'org_BP8mwjSpnKH5e1QU', '', 'cli', 'fixture', 'fixture', '', 'org.update', 'org', 'org_BP8mwjSpnKH5e1QU', '{"name":"globex"}', '{"name":"globex corp"}');
INSERT INTO public.audit_log VALUES (4, 1772442008000000000, '', '', 'cli', 'fixture', 'fixture', '', 'user.create', 'user', 'usr_iFGPvg9PBVsf9D3R', NULL, '{"disabled":false,"email":"alice@example.com","operator":true}');
INSERT INTO public.audit_log VALUES (5, 1772442010000000000, '', '', 'cli', 'fixture', 'fixture', '', 'user.create', 'user', 'usr_EIPrZtcLFg5CrMQU', NULL, '{"disabled":false,"email":"bob@example.com","operator":false}');
INSERT INTO public.audit_log VALUES (6, 1772442012000000000, '', '', 'cli', 'fixture', 'fixture', '', 'user.create', 'user', 'usr_KshMm2tndcGUuwKt', NULL, '{"disabled":false,"email":"carol@example.com","operator":false}');
INSERT INTO public.audit_log VALUES (7, 1772442014000000000, 'org_no9ulNNtcytaF35u', '', 'cli', 'fixture', 'fixture', '', 'member.add', 'member', 'usr_iFGPvg9PBVsf9D3R', NULL, '{"email":"alice@example.com","role":"owner"}');
INSERT INTO public.audit_log VALUES (8, 1772442016000000000, 'org_no9ulNNtcytaF35u', '', 'cli', 'fixture', 'fixture', '', 'member.add', 'member', 'usr_EIPrZtcLFg5CrMQU', NULL, '{"email":"bob@example.com","role":"editor"}');
INSERT INTO public.audit_log VALUES (9, 1772442018000000000, 'org_BP8mwjSpnKH5e1QU', '', 'cli', 'fixture', 'fixture', '', 'member.add', 'member', 'usr_EIPrZtcLFg5CrMQU', NULL, '{"email":"bob@example.com","role":"viewer"}');
INSERT INTO public.audit_log VALUES (10, 1772442020000000000, 'org_BP8mwjSpnKH5e1QU', '', 'cli', 'fixture', 'fixture', '', 'member.add', 'member', 'usr_KshMm2tndcGUuwKt', NULL, '{"email":"carol@example.com","role":"editor"}');
INSERT INTO public.audit_log VALUES (11, 1772442022000000000, 'org_no9ulNNtcytaF35u', '', 'cli', 'fixture', 'fixture', '', 'token.create', 'token', 'tok_ZH4INVMjpFI54EQw', NULL, '{"createdBy":"usr_iFGPvg9PBVsf9D3R","expiresAt":null,"label":"deploy bot","last4":"NS8e","role":"editor"}');
INSERT INTO public.audit_log VALUES (12, 1772442024000000000, 'org_no9ulNNtcytaF35u', '', 'cli', 'fixture', 'fixture', '', 'token.create', 'token', 'tok_4VZs1L6Z8jdKbUl9', NULL, '{"createdBy":"usr_iFGPvg9PBVsf9D3R","expiresAt":null,"label":"old bot","last4":"xxKA","role":"viewer"}');
INSERT INTO public.audit_log VALUES (13, 1772442026000000000, 'org_no9ulNNtcytaF35u', '', 'cli', 'fixture', 'fixture', '', 'token.revoke', 'token', 'tok_4VZs1L6Z8jdKbUl9', '{"revokedAt":null}', '{"revokedAt":"2026-03-02T09:00:25Z"}');
INSERT INTO public.audit_log VALUES (14, 1772442028000000000, 'org_BP8mwjSpnKH5e1QU', '', 'cli', 'fixture', 'fixture', '', 'token.create', 'token', 'tok_6feb5SaIuAshVgHi', NULL, '{"createdBy":"usr_KshMm2tndcGUuwKt","expiresAt":"2026-05-31T09:00:27Z","label":"carol''s","last4":"dZ8d","role":"editor"}');
INSERT INTO public.audit_log VALUES (15, 1772442031000000000, 'org_BP8mwjSpnKH5e1QU', '', 'cli', 'fixture', 'fixture', '', 'token.revoke', 'token', 'tok_6feb5SaIuAshVgHi', '{"revokedAt":null}', '{"revokedAt":"2026-03-02T09:00:30Z"}');
INSERT INTO public.audit_log VALUES (16, 1772442032000000000, '', '', 'cli', 'fixture', 'fixture', '', 'user.disable', 'user', 'usr_KshMm2tndcGUuwKt', '{"disabled":false}', '{"disabled":true}');
INSERT INTO public.audit_log VALUES (17, 1772442034000000000, 'org_no9ulNNtcytaF35u', 'prj_OKnrpfiEvltKAVrA', 'cli', 'fixture', 'fixture', '', 'project.create', 'project', 'prj_OKnrpfiEvltKAVrA', NULL, '{"name":"site","orgId":"org_no9ulNNtcytaF35u"}');
INSERT INTO public.audit_log VALUES (18, 1772442036000000000, 'org_no9ulNNtcytaF35u', 'prj_2Srvw21i254w8KGc', 'cli', 'fixture', 'fixture', '', 'project.create', 'project', 'prj_2Srvw21i254w8KGc', NULL, '{"name":"blog","orgId":"org_no9ulNNtcytaF35u"}');
INSERT INTO public.audit_log VALUES (19, 1772442038000000000, 'org_BP8mwjSpnKH5e1QU', 'prj_Qe6BTMJ5dCxitzfY', 'cli', 'fixture', 'fixture', '', 'project.create', 'project', 'prj_Qe6BTMJ5dCxitzfY', NULL, '{"name":"shop","orgId":"org_BP8mwjSpnKH5e1QU"}');
INSERT INTO public.audit_log VALUES (20, 1772442039000000000, 'org_BP8mwjSpnKH5e1QU', 'prj_Qe6BTMJ5dCxitzfY', 'cli', 'fixture', 'fixture', '', 'project.update', 'project', 'prj_Qe6BTMJ5dCxitzfY', '{"name":"shop"}', '{"name":"store"}');
INSERT INTO public.audit_log VALUES (21, 1772442041000000000, 'org_no9ulNNtcytaF35u', 'prj_OKnrpfiEvltKAVrA', 'cli', 'fixture', 'fixture', '', 'project.update', 'project', 'prj_OKnrpfiEvltKAVrA', '{"hosts":null}', '{"hosts":["www.example.com","example.com"]}');
INSERT INTO public.audit_log VALUES (22, 1772442042000000000, 'org_no9ulNNtcytaF35u', 'prj_OKnrpfiEvltKAVrA', 'cli', 'fixture', 'fixture', '', 'project.update', 'project', 'prj_OKnrpfiEvltKAVrA', '{"shrinkLimit":10}', '{"shrinkLimit":30}');
INSERT INTO public.audit_log VALUES (23, 1772442043000000000, 'org_no9ulNNtcytaF35u', 'prj_OKnrpfiEvltKAVrA', 'cli', 'fixture', 'fixture', '', 'project.update', 'project', 'prj_OKnrpfiEvltKAVrA', '{"exportRetention":20}', '{"exportRetention":2}');
INSERT INTO public.audit_log VALUES (24, 1772442044000000000, 'org_no9ulNNtcytaF35u', 'prj_OKnrpfiEvltKAVrA', 'cli', 'fixture', 'fixture', '', 'project.tests', 'project', 'prj_OKnrpfiEvltKAVrA', NULL, '{"cases":2}');
INSERT INTO public.audit_log VALUES (25, 1772442045000000000, 'org_no9ulNNtcytaF35u', 'prj_OKnrpfiEvltKAVrA', 'cli', 'fixture', 'fixture', '', 'rule.import', 'project', 'prj_OKnrpfiEvltKAVrA', NULL, '{"added":8,"mode":"append","removed":0,"rules":8,"unchanged":0,"updated":0}');
INSERT INTO public.audit_log VALUES (26, 1772442046000000000, 'org_no9ulNNtcytaF35u', 'prj_OKnrpfiEvltKAVrA', 'cli', 'fixture', 'fixture', '', 'deployment.create', 'deployment', 'prj_OKnrpfiEvltKAVrA@1', NULL, '{"exactRules":5,"message":"first","prefixRules":3,"version":1}');
INSERT INTO public.audit_log VALUES (27, 1772442048000000000, 'org_no9ulNNtcytaF35u', 'prj_OKnrpfiEvltKAVrA', 'cli', 'fixture', 'fixture', '', 'rule.create', 'rule', '9', NULL, '{"destination":"/news?from=press","matchType":"exact","priority":0,"source":"/press","statusCode":302}');
INSERT INTO public.audit_log VALUES (28, 1772442049000000000, 'org_no9ulNNtcytaF35u', 'prj_OKnrpfiEvltKAVrA', 'cli', 'fixture', 'fixture', '', 'rule.update', 'rule', '2', '{"destination":"/about"}', '{"destination":"/about/"}');
INSERT INTO public.audit_log VALUES (29, 1772442050000000000, 'org_no9ulNNtcytaF35u', 'prj_OKnrpfiEvltKAVrA', 'cli', 'fixture', 'fixture', '', 'rule.delete', 'rule', '5', '{"destination":"/about?section=team","matchType":"exact","priority":0,"source":"/team","statusCode":301}', NULL);
INSERT INTO public.audit_log VALUES (30, 1772442051000000000, 'org_no9ulNNtcytaF35u', 'prj_OKnrpfiEvltKAVrA', 'cli', 'fixture', 'fixture', '', 'deployment.create', 'deployment', 'prj_OKnrpfiEvltKAVrA@2', NULL, '{"exactRules":5,"message":"second","prefixRules":3,"version":2}');
INSERT INTO public.audit_log VALUES (31, 1772442052000000000, 'org_no9ulNNtcytaF35u', 'prj_OKnrpfiEvltKAVrA', 'cli', 'fixture', 'fixture', '', 'rule.import', 'project', 'prj_OKnrpfiEvltKAVrA', NULL, '{"added":1,"mode":"upsert","removed":0,"rules":2,"unchanged":0,"updated":1}');
INSERT INTO public.audit_log VALUES (32, 1772442053000000000, 'org_no9ulNNtcytaF35u', 'prj_OKnrpfiEvltKAVrA', 'cli', 'fixture', 'fixture', '', 'deployment.create', 'deployment', 'prj_OKnrpfiEvltKAVrA@3', NULL, '{"allowShrink":true,"exactRules":5,"message":"third","prefixRules":4,"version":3}');
INSERT INTO public.audit_log VALUES (33, 1772442054000000000, 'org_no9ulNNtcytaF35u', 'prj_OKnrpfiEvltKAVrA', 'cli', 'fixture', 'fixture', '', 'deployment.create', 'deployment', 'prj_OKnrpfiEvltKAVrA@4', NULL, '{"allowShrink":true,"exactRules":5,"forced":true,"fromVersion":1,"message":"back to the first","prefixRules":3,"reason":"rollback drill","version":4}');
INSERT INTO public.audit_log VALUES (34, 1772442055000000000, 'org_no9ulNNtcytaF35u', 'prj_2Srvw21i254w8KGc', 'cli', 'fixture', 'fixture', '', 'rule.import', 'project', 'prj_2Srvw21i254w8KGc', NULL, '{"added":2,"mode":"append","removed":0,"rules":2,"unchanged":0,"updated":0}');
INSERT INTO public.audit_log VALUES (35, 1772442056000000000, 'org_no9ulNNtcytaF35u', 'prj_2Srvw21i254w8KGc', 'cli', 'fixture', 'fixture', '', 'deployment.create', 'deployment', 'prj_2Srvw21i254w8KGc@1', NULL, '{"exactRules":1,"message":"","prefixRules":1,"version":1}');
INSERT INTO public.audit_log VALUES (36, 1772442057000000000, 'org_BP8mwjSpnKH5e1QU', 'prj_Qe6BTMJ5dCxitzfY', 'cli', 'fixture', 'fixture', '', 'rule.import', 'project', 'prj_Qe6BTMJ5dCxitzfY', NULL, '{"added":1,"mode":"append","removed":0,"rules":1,"unchanged":0,"updated":0}');
INSERT INTO public.audit_log VALUES (37, 1772442060000000000, 'org_no9ulNNtcytaF35u', 'prj_OKnrpfiEvltKAVrA', 'cli', 'fixture', 'fixture', '', 'key.create', 'key', 'key_Ar0qyBNlsM33zfhW', NULL, '{"last4":"uGVS","mode":"live","name":"prod"}');
INSERT INTO public.audit_log VALUES (38, 1772442063000000000, 'org_no9ulNNtcytaF35u', 'prj_OKnrpfiEvltKAVrA', 'cli', 'fixture', 'fixture', '', 'key.create', 'key', 'key_QHKHo9pItRlnJvKu', NULL, '{"last4":"gtfW","mode":"test","name":"ci"}');
INSERT INTO public.audit_log VALUES (39, 1772442066000000000, 'org_no9ulNNtcytaF35u', 'prj_OKnrpfiEvltKAVrA', 'cli', 'fixture', 'fixture', '', 'key.create', 'key', 'key_pMzxUSk9dT8fPTpj', NULL, '{"last4":"v8e9","mode":"live","name":"old"}');
INSERT INTO public.audit_log VALUES (40, 1772442068000000000, 'org_no9ulNNtcytaF35u', 'prj_OKnrpfiEvltKAVrA', 'cli', 'fixture', 'fixture', '', 'key.revoke', 'key', 'key_pMzxUSk9dT8fPTpj', '{"revokedAt":null}', '{"revokedAt":"2026-03-02T09:01:07Z"}');
INSERT INTO public.audit_log VALUES (41, 1772442071000000000, 'org_no9ulNNtcytaF35u', 'prj_2Srvw21i254w8KGc', 'cli', 'fixture', 'fixture', '', 'key.create', 'key', 'key_dP12lEcesxLv0MOX', NULL, '{"last4":"1iSL","mode":"live","name":"prod"}');
INSERT INTO public.audit_log VALUES (42, 1772442074000000000, 'org_no9ulNNtcytaF35u', 'prj_2Srvw21i254w8KGc', 'cli', 'fixture', 'fixture', '', 'key.create', 'key', 'key_TO7qLiVNZ3H75E32', NULL, '{"last4":"SHn7","mode":"test","name":"ci"}');
INSERT INTO public.audit_log VALUES (43, 1772442077000000000, 'org_no9ulNNtcytaF35u', 'prj_2Srvw21i254w8KGc', 'cli', 'fixture', 'fixture', '', 'key.create', 'key', 'key_hr0aziOfUlrcRhlZ', NULL, '{"last4":"ddUi","mode":"live","name":"old"}');
INSERT INTO public.audit_log VALUES (44, 1772442079000000000, 'org_no9ulNNtcytaF35u', 'prj_2Srvw21i254w8KGc', 'cli', 'fixture', 'fixture', '', 'key.revoke', 'key', 'key_hr0aziOfUlrcRhlZ', '{"revokedAt":null}', '{"revokedAt":"2026-03-02T09:01:18Z"}');
INSERT INTO public.audit_log VALUES (45, 1772442082000000000, 'org_BP8mwjSpnKH5e1QU', 'prj_Qe6BTMJ5dCxitzfY', 'cli', 'fixture', 'fixture', '', 'key.create', 'key', 'key_uAz3syz8RQLZ4wMj', NULL, '{"last4":"uA6J","mode":"live","name":"by secret"}');
INSERT INTO public.audit_log VALUES (46, 1772442084000000000, 'org_BP8mwjSpnKH5e1QU', 'prj_Qe6BTMJ5dCxitzfY', 'cli', 'fixture', 'fixture', '', 'key.revoke', 'key', 'key_uAz3syz8RQLZ4wMj', '{"revokedAt":null}', '{"revokedAt":"2026-03-02T09:01:23Z"}');
INSERT INTO public.audit_log VALUES (47, 1772442085000000000, 'org_no9ulNNtcytaF35u', 'prj_OKnrpfiEvltKAVrA', 'cli', 'fixture', 'fixture', '', 'miss.delete', 'miss', '/fixed', '{"count":4,"path":"/fixed"}', NULL);


--
-- Data for Name: deployment_exports; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.deployment_exports VALUES ('prj_OKnrpfiEvltKAVrA', 3, 'csv', '\x28b52ffd44007e00fd0500e2cb2522a08509cc5a00504a5ffee427932ed794f9a54fc9cf2ce521c22be4f7fa1d3019b0268dd71baf17100513c413ab04914facb23056330fc1db69bfe1742c6b8d26f638304399006fdd0b0fcc102ed367e3f502a20434ec16813feb24feeb9adb679d44c538fb31d2c43f423f469a85d149138b09a2e02e9a120d0e163564616c2b1858a9b5c1556cf86beda3c34cabc3f457e126f7f8010e00a011aa05594347c0065a81181cf26a61116c702170901a480b65a4392c9d074ae0506630a68693', '"6fd484f24ec9a6237e159c21ee17a01f"', 'zstd', '\x1f8b080000096e8804ff74cd416ac3301085e1bdc1379966ec7857285de40add97b1348e0cb24768c6717aa49ea3172bd420aa866e8478e2d3afb265c7e0596d5ec96659418d6cd38b788685cc85b78fc46d83179abe3e011d4d0c43d703dfc959db208db2d9d3a670dcb07a94e80157de395773caac0ab8f2aeaf5396e5e51886ee5cbed520099522c371fee663942b04b3a4cf886394eb89efb4a4c827270bfe94d4289bbeefb385b6412f4ef1d617e3c569656efd7fac741e0c0cddf94f4783a4023448aa228fe07b0089c7fa557e010000');
INSERT INTO public.deployment_exports VALUES ('prj_OKnrpfiEvltKAVrA', 3, 'nginx', '\x28b52ffd4400fc00950600f20b272480b7210c808b04207b9c749329e1cfad2cf9b669d313981b3adbb60f9ab47c312261e43c4b132f4d9c30128631ea82bad81f0a47f1906a3917e561a14a3123e0d59d16aa14fb4311354c2ec20d88e38854c7f624d5b12d4dcc9cbb128e2e53c08d7cec029cbb361bf92c4aad21558e2180865439c711c91cda9380813f0b75ee13aeb0c09c813df1479b3e548570636eb3e43e619ff3c68b0e6e0813006026a090807928c41272461ec0d15702c4ac33608d3c408ee386b65a719255c452e1c84a217aa96e408514a73afeeb50502f865325', '"047dd208a741cba44bae909b66df1cf7"', 'zstd', '\x1f8b080000096e8804ff848fc14ac4400c86effb14813dbbb17a73593c88779fa0909da64e61da0c93742dc8f67d7c0e5f4c18109cb1e235f9bf2ff9f7f0bc903318c99c87c4dd90d899ee8238b2412638013e51fff901ef90d8e634c1fd6d03e8a8e7235c8b1c9d65b69b59ab681e631d96d055ca89df38d5ce98580be15d0eea639f643ce56d6d562f119502ffc41a40a5c047b8eef6f092b81f96adb6ed0a780ef25aa2de2cea03e6cd81171a63e08393b12cd5ae809db8eadb6fb613a7ffb37869caafffc42f0d16c5db1550bdc4edebea25febafe35003c961a65fc010000');
INSERT INTO public.deployment_exports VALUES ('prj_OKnrpfiEvltKAVrA', 3, 'nginx-map-exact', '\x28b52ffd44006401a50b00829b4e2b70a76900fcffabaa8aed23b6c9a62f2c29892693a4dff2cfbdee3763dc848cc2b651cb4d017629fac31d56c942b26c5346dfa68c225c3cc041a90830641f3af3ca2817b20fdd6910f5848da2f34cf4848d2eab34a12348a0b400faff44e14ccec3a3ba84796544571cca1eb15030ce7a6713e4f299fd40c158cd20df36e517877cc473b3c1749eadcd87efaceb51dd77f51b8ec79ed40337240b5fbe5030fee4ec9557b841277d9639145c2905cf6ccf06b9d14782adb9dc04b9bc44750aa3e731c743a9170940501c7c238c9947dd8210e01b61ccf43ed26c98c5ba98a8eeff6f481adb983ab3d557f0ebcc961edbd547b0b3fb1ed59dd9eaf346181f42fabbfa884782ad79ec5edfd57f066e481403c729dc12c6671127e8143caafbd3b39eb74df94e2b99b3f29df4d90378a3933e9b88ea12cf638e77431400402508daa2e9109d6ea9c198000f9505c41e54bf3c2497b810afe4148c24a06db5db605d23c305b206457c120a8163d5388f83d203fdde5dfb', '"47b5e39c7711ca4531697eec0535ea88"', 'zstd', '\x1f8b080000096e8804ff5c904d6a1b411484f7738a02796183a4962c27040d218bac72822c87a79937eac6fd47bfd79190f181728e5c2c644652c0bb477d4d75552d108f2e9e5781f28acfd4eb1e9f301d283cb8c2bda254cf0212509c5f2350c6e3907a317ccea9a8acc3f0b46e16f811a1966155330e3ef5af4ba865e82941dc85056a9d205046641e6409b51ca196e162efebc04823d43ac1e83cef9b05002050ee2c89ed0eb57f65edc45d189f5fda8f38d0b91377613c6f5ebeb4cde21fbc1b1bd6dec4a38b67736b2673e575a0dcfe0f2f5c7e7199e3efaf267490e4ab72771f258de3fd87118f0f37cf6e1aef096f28acb544ec365b7ca02dde9b057e52892e1ef750cbd3a29604314194b40afae46b884b48c216a57ac6c9a9bdd1dde6194ee6ac0348b0db6c97e0f5710d930b8b3481321e6a7178b8d59da3e1ad0100f39dc63fbf617a1ab99d153aa4aaab2ad7cb5ce5e40798c8272e5761f29f24f9369614be4ec2158a4dd908798611f2dc36efcddf0100e349620964020000');
INSERT INTO public.deployment_exports VALUES ('prj_OKnrpfiEvltKAVrA', 3, 'nginx-map-prefix', '\x28b52ffd44003d021d0d00d29e542340a93601e355a7923443645761ab3b25c5bf208052766010096bd707334c36478d63720b43848b235cec68207082aa81e07082ca713035daa2cb481b0a6c13c78170ec5e6f301ecc190a6c13e7a081f9ff25c230ef06e5a3eaff9785b385108fe91c0e86471a8837188fbf855af70b57308a8026f106e371c0bce11244e20f8b3c0fbc441b6a9027a994a1ebe639a6fb6a38f9d395f04e19e922a65b3cf0fa58fbc3aeabbfda4f5e6015619523315dc34ef418e539a9d5b92aa8a5c7feff87055249b04d1ebbd775f55fc10f4bc395c4e20b0c081ea10a84daa0655fa9d341bec0aa5a7885660bd9c63f76ddfc61617dac5d573fc2ba52a77be7ea372f7baeabcf5ac9be7af955b5f0dad8f3c71820a67b9e956d7f6914ca35dc0b63a40e27a812e70719b36e8cf49b0da2e8fe818fe9fef29c676dd0be932e53ba5fcd1224dc9bcd1f3824628f6e5cc4748be831cafb211e000021a0935406007b40085821181ca4aa6e5caa01f9300fb807090311acba70efbdf0e54934d0acfb20470723cfc88e96c428476c65dacc9e65c92e62642a8655411826105fdd0db9181ed41ebc77a902', '"27100dafd47789fd13d2a0504520d6b9"', 'zstd', '\x1f8b080000096e8804ff7c92416edb301045f73ac5871ca049914851d295b5ea32bb9e20064d8d44c21449cc8c1c154172f602b2dd3a4ed0f5cc7b7ff0c915e2e0e37c379a7c97997a3faff103a28655362f5e1d983acf64153c051218818988838f334693917a300d53300c9a3393884f5170dd252b35cd39b14a35763755b1421c7c9ca1ec4960309afc4dbe847d44ef032171470c133ba8d991401da1f72c0a7546311ab58ea4853a42f091a458c130c14764f689bdfe3e386e21e98c1e8d5a077f10f214689985947653c6cf5f4fc8deeea42a56788acbc8a9666c43b2bb75b10200f868c3d4116a525b2f15d6a7a2e45864359adcfe7308f19ef860b985e9957871fb1ec14742eacf9e826663152f8e22b6491d4693058609935077bac16c25854969734a46eafbf638f43daeaf983acf647573b808ef289f1fef1b5c57df6fca1bbc8249278e78bc6f70d5b4783b9aff033f7c013f1ce1d1645c4decf129f8b500808e7a33054559b6050094efcff536a4a144f978dfc0a96659d7f536a4a1a2d98c395065d3589fad2fdf6adf5c105db2f281d83797d092f1f037e313717692b8942fd6c5a5fc21a06c8bb7e2cf00bc39ecd53d030000');
INSERT INTO public.deployment_exports VALUES ('prj_OKnrpfiEvltKAVrA', 3, 'haproxy', '\x28b52ffd644103e50800b24e2f2690b739fffbdddd6db2b6534a24b94158d93bc924b96ec0f583627777372189d2c54ef2f229014803b673d8ce1b0c85b1580edf6ecba17cbb2d1450ef811f8474e283d38f2915e0f0df39fd98c34c313d0d47832c2089a7bef8a92bd8ce1308778e5000ead80cf88323c53942c412f9c1517bbd28eaa566ea52f252335516d33cc98daecaa89fd7ed970b60496ebdf9ced201c704fe3b0421a15102954f92f13da124971bf3a26470af3017f35611ffe5f8348ee9f615ca5f9d0ab2102a20104398e4006ca2882c87ccbfc3986441d1de4cb22894711e4401d17e049c4f65c67632e687bc1d379f0defc1590aa44bcef1dd8977b965f6766a1ac2aa21cb25b395e36543ee22ca37ee285f106761ecc8f6398d9b4fd147f1f1c2ebaf8a', '"18e6d0e1f255da3ec56b846910c72b8e"', 'zstd', '\x1f8b080000096e8804ff94d2cd6ac3300cc0f17b9e42d0eb522ffdee60ec3076df1b04c751ea80537996d3f695f61c7bb14160a1a2b84b8f39885ffe9267f071d12642a7a3b110b06e039ac899366efc2a0bf03adaa73eb8b2460379071c03e42da877ddfc7c6736469f07fcea91e33805866a84e573018e8c8e2d1d4119dd20b4cde894858416494857d4c7bce7e9d630a184b69059cba446ae9e1e75c4330651b594ce2ae9f880fc4fd2e26a7d473cf35b13a87b1d0645db4a9aeba4c996bc62ed707a216b87025b6733f80cd8b497f1942cfdcd8d5fe161783295a3c3e4176363f4fca254e5e830c78beebcc3b9a14ede7523ed6dd2aec9b03a150ff3351916fca95062215bf907bbbb7f709fbf3af85ffd0d0f6d332ebedc497b9fb4d9927fd8664b5ea40b7b9ffd0e00a75a7d1241040000');
INSERT INTO public.deployment_exports VALUES ('prj_OKnrpfiEvltKAVrA', 3, 'haproxy-map-exact', '\x28b52ffd4400e8004d0900f255402a7087310000e00000005a83f6f453efb6d2c2184fdb5ba45ea6252c0eda10faa989247731fecfce070613482ee4f35cc8c7a962014c7719c08f6ce7c8e623db795a7a90737e493f4d8007c905d1b983070b12380873ae3b571c4a1ea1482ccef894099b7c660e20b150cd3c9eebed15573ea2b1b7149d5f63f3b59d51dd217baa3ec3d198b668e005a4c1537bba9c253f832fcc111c407853a611e9ba22b17826453f38640a9f833a8f01813235d63e846a743f34c2261b4a6bdab0989074f29bf329c84d5cb7faff1710466ad94d7779aa7e2b70e59098c2bdea9a3c8c3419becd0d87ecabcb39d7db37ca6552ee1b61930f7046236c3271c892058dae43f5420d0046c849554365cb8001102768bd0b4ce5a52f48832acb6056950893e5728dcc7b480433095ddd4a', '"1fd24fe7d0e496012d4e31ae4c4c82ac"', 'zstd', '\x1f8b080000096e8804ff749041aa13411086f7738a1f829040663a31b809880b579ec08548a8d75df36660baabadaa7e19110fe439bc9810929dd915fcc5ff7d551b4c5455d69f7da6daf34ad1cff880db00e5342b4787b6850da32832d58bb9629b245ae0b58aba0d39ed067c29f08931aa14e792cedd060030b9d75ef9476373187bff46baf5b50c8ff60baf147d874a3eed9b2e97c4717fe76c037b0c77c5f0f0b19e578a3e64aabbff511e7b889218a7c3118b44f2590ade7d7b82ff8e79c42f3c49d1678cd24ac2ef6e83afa4652eafe7dbbd992a2632148139793344595a2e7b98e0787b1daeb34f8ff474788fd960ac6f9c4086d3e1b8070faf03425536ebc2671afffe4188347217e8459af7cd10e8459a872ec892100a5f59bb5095cd100a5fedd3a8923fde2b6c921a8c1646305ab8fb37008b64afd6e8010000');
INSERT INTO public.deployment_exports VALUES ('prj_OKnrpfiEvltKAVrA', 3, 'haproxy-map-prefix', '\x28b52ffd440071028d0c0032de52234089b6013b5aa1a5e45052572d612769ea82fd2e14e1385511d9bf71e9daaad8b013014f193f659c94c49830268995aec6c27156ba92921e554c3aefc12819893a91941efcbad9190bc725ea4492d2f046a3e18c85e3dbfc4771c619deb41f24021eb03410cbc9d62c060077da1a953a672c1ccfa5ea89870fc329a9ce8458542e88b3d0c21adf13516b721fa4556e5bb98c8b1ab1385174f29b134ac855bc6ef6ff3f288f950c3d17cf0f9fb3d6c85d3285b7c2281b3da76b4e37f883b22c97ed749b27eb3b8233dcedda77104ac8b3c677fc6a435030f00721683ad03e59bfd13b6d8dae35e7fa72f883c25063f393f539db2eaaa76bce99c2bcf217ced66db5ed7bb2fee6241b99c217896b4c353e6f4e8953e7c9fa8ca0da3b284c623d0cf7ea8b32b1d285b824239087cf579b73aa8594cfba2940b8179b2ff047d49adca778f8281622dd87ec8718002093281ca774064e380648248e2a8040ca9618f240609e3637c18063faae35e8335d4eacbe8b872b0e695db3b227f2b18c3f2c0b86e588dd91a34fc88301858a021aaa8ddf', '"397aecba9b4817f01afe49fbd333f3ea"', 'zstd', '\x1f8b080000096e8804ffbc91418bdb3c1086effe152f848f24e0d89bec77caadc7bdf55e4a9848e348acadd16ac6894bd9ff5e48bc85b429bdf52ade79f4cc3b0b04ca45a66f9b81f22617eee2b4c7ff50a3627ab8440b50198b6345270503e5c3914f587971daf294a59836835f37d50203e5c3914fc8d1bd2a2c307a492756c340e6424ca79955e312c8f8cce59aca254a8916596ba880c905f431311c9512f98652231bb55a80928767b598c8a22448778594b1675860f422af63c6a7cf2fb3482705844c16c06f23f53041349d5d1abca4eb5c572419275f570b5067b35b1f132ba4bbeb892772864be084a358c040594185312afb7db5000004b3bc29fc36b21a946d73a6b2b22935857d2cecec70ab7b8d4c16eab1f407cfae9e1b5eb56cae9d8fd37e8ce87ca266a0bc7ef4cf47104e3ce3f9698b5edcada7ffbefc49a0ee22f77eb5ab9758aebf2276f88ebf64b7f512cb353603d40a9e9fb6787fb4f6af3abb7fa4b3c37bd51e7b395dd58259d67d7b7d6878a221f7dc3819daaaf5e214cf4fbb9f192f4e1f64daf3f60ef55becbc6dab5683e43b9a06c9f7b41f030090d5c65f71030000');
INSERT INTO public.deployment_exports VALUES ('prj_OKnrpfiEvltKAVrA', 4, 'csv', '\x28b52ffd44004c00950500b2cb2422a02714ff71551540f6de32d94726293824d849a6a9266ba19dcd27f2e7f74aace7308cd119a30724ca5df9a071a04e0a833722fb6712e5d02450b122bb30958b45ae7c1005cebad199045ef9a8dc1e589c5af7042ab76f973c324657ecc23b0b776343e2bd01746343a271b4e662cf24caed21150f21e19005348e650705483bd5ede1c25b67ff16a7ce95fa7b6e15d1f8010a00a0115010aa3ab2576d8888f39990d14f0e520684f3e0e88f7906651fca43', '"d643601056bbbbb6b3f70be87cf6c12b"', 'zstd', '\x1f8b080000096e8804ff74cd514a03410c06e0f7426f129b1df74d101f7a05df256652666067323499b61ec9737831c15d6457e94b08f9f325a6fdcc0251cc7325cf5ac19cbcdb51a34021e7f4fad164bfc3239dbe3e01994e02e310406ec4bedf21bd6bf7876e30779b4ca70858e5ba0196b4a1d12430d775e6426539f462c29eb53effccd64b51d9f01220b9377b428cca76901b9536c981b5e025208c4300733abbbd5db3a785dd37300e8f7f80256dbfc092b6cd93ffe07b00c7aaf7c74c010000');
INSERT INTO public.deployment_exports VALUES ('prj_OKnrpfiEvltKAVrA', 4, 'nginx', '\x28b52ffd4400bf00450600520b252390876dfffbddbda84b11fb3be56eae61247492c4417d1883fe49cebe59aabbe4e553024583496be487d6c8910492c85cbd07abb694e1c3b74fe680b77f8407df3e890b084c5ad81da05134982ce547b04ebfec04ff5ad1a5fc4a9d957ab6469ec0eca8fed78afa03f8d78a3698f0a29b8804082073efd9a10232342c5a908840d6e9755b15fecb2e1d7688f675e1af320668041200e0101457088e14e1a1104b5818395f5ff0cc1c03b828dcd059699701661e4e7507296428d58da710ed54c77f1d0a0aa2f05da9', '"cadeb9cd8797752f9baf086785b8485d"', 'zstd', '\x1f8b080000096e8804ff748f4d4ac53010c7f7ef14036fed8bd59de5e142dc7b02619c4e4921c984ccf459907a1fcfe1c584826852ddcefcfe5f47785c900c221a79283c4c85c9f41084d026497006f780e3e707bc41619b4b82dbeb0e1ce1c83dac15872f32dbd5ac0dba9d5b56c2d038267e6d21f5929d62e0c65131700f6b55d21863836dc1f7ca6493a4b331c61ed6c3119e0a8fd3f2d7d8e777708350b5e006bc59d63bb77d4ebc60cc814f24d1551dbeb5eed2d53dfe955fbabd837ac9bf67fca4ab97bc4bff1a0094d2dc6ebf010000');
INSERT INTO public.deployment_exports VALUES ('prj_OKnrpfiEvltKAVrA', 4, 'nginx-map-exact', '\x28b52ffd44000201c50900b255402a60316a00ff2c76f7dd27d5663b26272e296125896cdfb2ff5fedd618d5060412022df439300ce5dbe70c4b65619c6e1f3cc85a2d2338dd6ecae9db9453848b25fbd29f067b4247d3792e7a4247998554a50308006942faff857226e7e151dd5239f380c6c09f9cbdf294275a69b4cd01710882e09bedd9203b1a51b03997bb209799a88ec1297a0cf292ea4d068e86c077c2b889d4318e82ef8471d31b51d36916eb6aa2baffbf61796c63d099ad3e04bfcf6ceab15d7d053fbbef51dd99ad3eef84f1a1a4bfabaf8828d89cc7eef55dfda770c3c2483c8ec12d618c36b1820fe251dd9f9ef5bc6dcab75ac99e956fa5d19ee08f561aed22aa5b448f41de0d0113005a65c22ba264662e67ae6a0ef7274207d52f0fc9252ec42b39052309685bed3658d7c87081ac41119f8442e05835cee3a0f45e146712', '"a9ccd6ddc95604dedae93bdb68719ced"', 'zstd', '\x1f8b080000096e8804ff5c904d6e1b310c85f73ac503ec4502c456daa645e141d145573dc580d6702221a31f885433709003f51cbd5851cfd805bc11083eeae3e3db203d8734ef22951dcfe4f480cf3817a83c84ca4e51dbc40212505aa611a9e06ec84e2ccf2557957d1ceef766839f09ea195eb5e03865f7f200f50c7dcd90706281fa20885490980779807a4e50cf08c94d6d60e411ea83600c131fcc060010a9f49ec4f7c7e65e587b0927c697a7ee568e34f7124e8c8f8f4f5f3bb3f9275ec196d5d9f41cd26c2f97c972f23e52e9fe9b17aebfb82ef60f2b848e92a7a6dc5f43c9e378dd30e26e7b61f6e7f0eef186cada6ac2a7c70fb8513bbc9b4805db5603b61737cb4fbc1900b03f68fcf31bd6d1c8ddd2a1636eba6bb2566b374f036ce2d7ce0080159f8b159a18e7771d52a6b802be0b3b0d397d53a6d89977f37700c9e38a7b02020000');
INSERT INTO public.deployment_exports VALUES ('prj_OKnrpfiEvltKAVrA', 4, 'nginx-map-prefix', '\x28b52ffd44000e02d50c00b21e542340a93601e3552792344364576ba2372705367ea1500c0047c2daf5c10c93cd51e3981c8b42848c2364dc583898330ea3e238981a7da2cb481b4e5039ce8363373b63e160ce302a0e27a81c8305e6ff1708c3bc1f2897aaff5f12de163a3ca66b34140e611cce5838fe166add273cc124021ac4190b8701f385470e88af06590b3ea20d3d9025a994a1ebe639a63b6b28f95376f04e19a922a6532c787dedf96a57d65fed951758adac3224a66bd8895e9b3c27b53a57053de9b5ffbf617950127c248fddeccafa8fe086a5614a6af10405038f1005427da06d67a9d341bec0aa5a78846e0bdbc6bf76ddbc61617dedb9b23e8495a54ef74ed66fdeb6aeaccf4ac9be7af955b5f0fab4f5d71820a67b9eb56d7f6912ca35dc0b63a40e27a810e7071bb36e8cf49b0f34d1fd828fe9fef29c677da07d27dda674cfba1d44b8379beff8236a4b372a623a45f4dae4dd101a000021523b9dc10055d94560ed0c1fa604ae40724084a02edc7b2f7c79120d34eb3ec8d1c1c833b2a32531ca115b9936b36759b28b18998a6155108609c45777432e8607b507a6553b65', '"5a80056822eede1c951fd2b8f4be1dff"', 'zstd', '\x1f8b080000096e8804ff7c91c16edb301044effa8a811ca0769148967db34e3de6d62f8841532b93304512bb2b4745907c7b01d946dd36ed79f8de2c860bc4a38fd3d360f25366eafdb4c316a28655f6af5e1d983acf64153c061218818988471f270c2623f5603a8ec13068ca4c223e45c1b24b566a9a7262956ae85655b1403cfa3841d993c06030f98b7c0afb88de0742e28e182676507322813a42ef5914ea8c62306a1d490b7584e02349b18061828fc8ec137bfd71713c42d21d3d18b50efe22e431d09c85944e63c6b7efcfc8de9ea42a16788e73e454330e21d9d3ae5800007cb461ec0835a9ade709ebdb50721db21a4c6e7f3984f84c7cb13cc2f44a3cbb7d8fe02321f5775f4193b18a57471187a40e83c902c38451a8bbdd600e92c2a8b4bf3523f57d7b0d7d8fe50353e799acee2f17e103e5cb76dd60597d5d952bbc8149478ed8ae1b3c342ddeafe6ffc09b4fe0cd151e4cc6c3c81e7f15bf1500d0516fc6a028cbb60080f2e3a5ee9295fadc9428b7eb064e35cbaeaebb64a5a2c90c395065d3509f9bba6c67c90d9a89cdbf89bb0e7129fff15c5ccabf15946df15efc1c00cddda01b0e030000');
INSERT INTO public.deployment_exports VALUES ('prj_OKnrpfiEvltKAVrA', 4, 'haproxy', '\x28b52ffd4400c4025d0800120e2d2590a76dfffbdddd6d7ab433056d361122bf93a4c46903ae1f10b6d69a750b5a0b1188de8e2547e3f5f2d7cb1b8c84b1404901b95e04b7e7f461846f2b8404fcfdafa4807c5b2130b37858c3f0200f87c229ff80d3ec979de06333ea945f9168eadcd4d1ebe50965811dd55a493e36a31e918fcd689296862537ba289d66afdb2d538092ac7af39d630243e4fdaf83a1a1d102940c49f89e0ec965b5341801d6ebcbb4b4d5c37f1932c530d7bebafcd5c7200f012200c0268288c07220f31f0e03240b8c6870b382c9028c1dcec38001ed80f96a480fcd5b20663bc23540091606b2185a797c0374603990591a87bb06c8814540be701cfa1b208685b141b68fd2b859157d14130fe3b78567', '"c68d9f730aed2eecc37dc2a20ba14354"', 'zstd', '\x1f8b080000096e8804ff94d24d6aeb400cc0f1bd4f21c8f639f39c6f0aa58bd27d6f101459ee18c6d1d492d35ca9e7e8c50a59b888e2e02ebd187e7fc95ac0cb15c9a043a3083dd76dcf645a20a5f1eb5841468bff863e1d6b26283b50eba16c213c63f3f55944b35cf6fc3eb0daf80a486a86f5ff0a92105a2b6708840d43db8cceb1f2d06a12c2930c560e3adfbabd70d8ca4fb59ec424d5f3673af38753d65ed94c2a1a2507c5c4f32dc5e4f7b7f1d8761233c66efe7fbaedee4999ac95f3a331764edd160b78edb969af6389fa90ddaf9013bfdd2ea616d270a966b744b3ac0f21d442bae42b7639f192a40b972ab8a89d2fd8df2db8cfaf7e4e769277f6dedb87495ba3e43fdb1a25bbd19d7d28be07006c60b294c4030000');
INSERT INTO public.deployment_exports VALUES ('prj_OKnrpfiEvltKAVrA', 4, 'haproxy-map-exact', '\x28b52ffd440086007d070022d13328704131000060111140ca00bd49ea16222d198b5fde52ee9b8904091ac21a11d2de8186ddd8f928cc67a5b601dba593f241bf7d247ea5361e6592f1ca24635b85f13828c32b66f19c1feab78fc4a349263c80004922e089b8626f932ff4433c59bea01070b64b675ae603020457b5e98b960b61c4d48a0a4652e560dc63289ded8b4ed9a803614d2b5c36a0567eb33e0675a8752bffffc46928a6cdd62557a5cf128e2cd442b8ddb64691d32ac55db3a3e5badbe4accc73efa46e51eade291b7dc11b9db251d472a187665d4be5890a006b195ed0da1498ca4b5f90065596c1ac2a1126cbe51a99f7900866732e42bb', '"b9208959c8d098362cf434b2efbdfc19"', 'zstd', '\x1f8b080000096e8804ff748e416a23311045f73ac507336083d535c3301bc3904556394308a62c55d30d2d952295920e2107ca3972b14062efe25d41fdffdfdb60e252757df1898b9795831df00f5f07aac4b94a30d4be48c3a81589cbb159c5366a68246bd16a6d487137e02ec326c158359be478701b00c064567c95c72ecdd0c4fc13d7adad79b8ac1f65e5603b14b669dfeb728c12f667ce96c4029d15e9e2d3bcac1c6c485c763f512e39048d82bfbfff60d1c0366bc6affb2bf807cc235e71e50b9f306acf116f8e6e79fc7807051ec5119fb49bef0dc427ede6489708caf2eca84d5aa8f122a0c68b3832e184efc64d9360b3e6ff269cdce700087f8c9686010000');
INSERT INTO public.deployment_exports VALUES ('prj_OKnrpfiEvltKAVrA', 4, 'haproxy-map-prefix', '\x28b52ffd44004d021d0c00929d50224089b6013b5aa1a5e45052572d612749d4a86da69447bfaae1b6695cbab62a36ec444f193f659c92c4449845e34c24a547d592ce7b30ca8595ae941cfcbad9198bc659e94a49c3198c86338bc6b7f98fe2cc19deb41b24021ea03010cbc9d628050077da1a953a67168de752f5c4c367e194546742282ad7c35948618def89a835b9efd12ab7addcc5458d588c283af9cd0925e42a5e37fbff1f12c74a869e8be787cf59ebc15d3285b7c2281b3da76b4e37f843a22c97ed749b27ebbb812fdcedda77104ac8b3c677fc6a334020f00721683ad03e59bfd13b6d8dae35e7fa72f843c25063f393f539db2eaaa76bce99c2bcf215ced66db5ed7bb2fe66241b99c215886b4c353e6f4e8853e7c9fa8ca0da3b244b623d0bf7ea8b32b1d28538240f1e0f9faf36e7540b299f755378702f36bf7147d49adca778f8281622dd87ec8716002093281c47296b7e14f604d2abc4900702f3b4b909061cd377ad419fe97262f55d3c5c7148eb9a953d918f65fc6159302c47ec8e1c7d421e0c285414aed583fc', '"2d796395caf3415d3c730d2d920cef8f"', 'zstd', '\x1f8b080000096e8804ffbc91bd8edb3a10857b3dc5018c0bdb802cf9a77377cbedd2078131264726b11287cb19d90a827df700b6b670b08b746989331fbf39b340a05c64fab919286f72e12e4e471ca046c5f4748b16a03216c78a4e0a06caa7335fb0f2e2b4e5294b316d06bf6eaa0506caa7335f90a37b555860f4922eac8681cc85982e33abc62d90f195cb3d954b94122db2d65001930be86362382a25f203a546366ab500250fcf6a3191454990ee0e2963cfb0c0e8455ec78cffbfbdcc229d1410325900bf8dd4c304d1747669f092ee735d91649c7c5d2d409dcd6e7d4cac90eea9279ec8196e8113ce620103650515c6a8ec8fd5020010ccf2a6f0dbc86a50b6cd95cacaa6d414f6b1b0b3d3a3ee353259a8c7d29f3cbb7a6e78d5b2b9763e4efb31a2f3899a81f2fab37f3e8270e21987ed0ebdb8474fff7dff4aa0ee22f77eb5af9758ae7f2076f885bf6477f512cb353603d40a0edb1dde3f5bfb4f9dfd3fd2d9e3bd6abd38c561bb4730cb7a6cef0f0d4f34e49e1b2743fbc8b4d7dd7d832f63d75d5bb51a243fd134487ea6fd1e00134dd4674d030000');
INSERT INTO public.deployment_exports VALUES ('prj_2Srvw21i254w8KGc', 1, 'csv', '\x28b52ffd0400410300736f757263652c64657374696e6174696f6e2c737461747573436f64652c6d61746368547970650d0a2f666565642c2f7273732e786d6c2c3330312c65786163740d0a2f323031392c2f617263686976652f323031392c3330312c7374617274735f776974680d0aa8f50169', '"b29c6abcc0ec9fc7baf20845e5c9fc10"', 'zstd', '\x1f8b080000096e8804ff00680097ff736f757263652c64657374696e6174696f6e2c737461747573436f64652c6d61746368547970650d0a2f666565642c2f7273732e786d6c2c3330312c65786163740d0a2f323031392c2f617263686976652f323031392c3330312c7374617274735f776974680d0a0300b132db7668000000');
INSERT INTO public.deployment_exports VALUES ('prj_2Srvw21i254w8KGc', 1, 'nginx', '\x28b52ffd04001d030022c6151b70c70dd8094225cd2aad63994f005d880cf4a2bd640d54ffe85a03e8f9612c559c1e56494663a9e29e28b44d94094fe8f9b1300dc018df970abc61432b1f714435b90bde38db98ce8258a7f222ca57b2917927b6c15302100641c70a409f011cf19a70', '"fb2ba28897bbf2989724e84750194ff1"', 'zstd', '\x1f8b080000096e8804ff6ccb4b0ac2301006e07d4ef143f726a9ab525cbaf704c2309dd2813e60324a40e2d9dd4b0ff075b85762c746ce0b4c2635612f613d985c8f1d37c45964c20726feb21dd79411ad944bddd6112d747898cc5acff0f38bd8a73cfc69325ef42db14f7918d1c26f009b01cdd685000000');
INSERT INTO public.deployment_exports VALUES ('prj_2Srvw21i254w8KGc', 1, 'nginx-map-exact', '\x28b52ffd4400a900750800a2d53c215087560108241e2d1758596c596de19e9319d8a907dfc6186a00efcd7b66a6126028012d4d8b0a66a87ca932caff23842f7c0a7fd950c29733160177f0698547f8a155464d05c3995d18c649da4fe3f023a11a40e5e56553b4caa8096ea570974225ba853845b52ad7f534caedff3f41cb406301708d2ca7982d314e965eb6ff7f829686c035b29c5a0bd4f3488c93a597edff9f208736cb9c97f519e7ba9e46b9bdb2be53d647f052757fd9cecbfaac91e53b077d657d4481729ac75f37bbb2be2378821487d514dcd079511556ce32fc657b740b717779ce6bf3c0b752b84be15b65d433ee689551132f5b22ba85b8270108003f9134a8ce78120d34938b2d57300284360a04e066a6fb8af37a', '"4a155419a771e27cfd211d6be6fa5744"', 'zstd', '\x1f8b080000096e8804ff5c90df6af24010c5eff7290ec40b054df4fba414f3047d8ab06e26ee62f60f3b9376517cf752532d78377066cefccea9104e2e948dd76943451b396087fb804cbdcb6404791a099aa1c3bc0caf13967d34dc5049310bd7be5fd5aac2478058821549388ed19cd7104b90af0876176288750caf130251cf6b88a500b10417cc38f5843840ac630c6ea483aa00005ea7ce6ab6dd713267928edd85f0b66f5f65af4bc7ee42f8b7ddbfb7aafa119fc60d8969c2c985d23c82f19cb8f63ab57ff04cf993f28c7ff835d1478ee324d43d3b89c3f0fc3060b9787876f7ee56b822934c39e0ff768717b5c54d799db098b2c3e241335fe2aa00a019887a3499b92e7e6cd54d7d0f00a621fbdfa9010000');
INSERT INTO public.deployment_exports VALUES ('prj_2Srvw21i254w8KGc', 1, 'nginx-map-prefix', '\x28b52ffd44009d01cd0b00725c4e23208bb8013f1fe7ce5944b6aaa8285df221c080404642986308dbe3d9a051010388ccd08a83e2a48232b5c8bc7140962f038de3c1203c2cffaf38cbf286245cf9fcbfd2705d29f187d1e3e170a749bc7140de56eadc377cb12c021a8a370e08c2f28747128a2f75d6728f644b9063093ec9d273f1fc303a6b27794bb6f0563825e361c458eed914fad227eb6ff6c20b6c2a6cb2f3306a3033354d688cea649e8f04a9a6ff7f844230510e92fc75b327eb37832394064f94be1b1c14fc4913e7129256cf5463e4f8029bcfba33b4aed37d6ffa5c3c42e16c0a3d59dfe164aa317a23eb37afae27eb734eb0ff34fce6b3ee09e97a530678181dcfa9db571a8b276a70af7b5332acdca33837a7ccb96fca2f425242ee97fbc3e80dcff884a47dab5c7d72cf5a1722dc8bcd6f4e30e9ca7d8c8711636a9ad08e081600bd190a8fa704ae40724084a02edc772f7c79120d34eb3ec8d1c1c833b2a32531ca115b9736b35f59b28b18998a6155108609c4576f432e7507b507e50887a7', '"f1c0d25fa3c5954b8ab77425d8941c58"', 'zstd', '\x1f8b080000096e8804ff8491c16adb401086ef7a8a1fd950bbc496659f129d7accad4f10339666adc5abdd656694a884e4d90bb6450b0df43c7cdf0cdf2c10cf3e4e9b81f2260b3b3f3da1861a89e9f1cd5b0fe1ce0bb706190383141411cf3e4e18282339089fc740029eb2b0aa4f51b1ea52ab154f3989e976e8d6dbe2be09269e158481f237fd12f611ce0746928e05143b185d58613dc3795183f56418c8da9eb581f58ce0236bb10009c34764f149bcfdba391ea0e92f7a206b7bf89b50c6c0d75948e93266fcf8f98cecdb8b6e8b059ee375d49b659c426a2f4fc50200e0631bc68e51b1b5d5b5603577d27bc7ed40b9f9e3509657969be501e48ce5eaf60ec1474672b7aa9b81f286276a0d6f3d479c92f518282b4818a37237df40274d61343ece9b919c6be6031d56cbf975c7db67f189f2e5b0abb1da7e5f976bbc43d8468938ec6a2ceb061fff87f75fc0fb3b3c50c672148f7fd8f702003a7634064359360500949f2fd57e573f96280fbb1a1549dbfb57aef6bbfab16c8a8fe2f700629a2cfd9d020000');
INSERT INTO public.deployment_exports VALUES ('prj_2Srvw21i254w8KGc', 1, 'haproxy', '\x28b52ffd440006004d040062481b1b60891b984e260c432fab28946230c8a59c4bb9451d2016004b2e076821ea588626b62523a28e65d0c27a565126bc402a51f66e7902efb1f103b38dc9b8ab4370654cbe9f3a08e5d47437c45415e39bcefdbea4a7b2c4b103688dcd55e212d1eb545ea6fc968dcb3bf119bc0809000673a400086807e60b981e6e16af52c511ab528e62e20167ae601d', '"a2dbb480e87c7cd820090cd963ebe24d"', 'zstd', '\x1f8b080000096e8804ff8cce31aec2301084e1dea71829edcb4b6caa1c809e1b4466bdc1961c12d61be4e323514420844439cdff4d8363f5a498bd52847048c2a4c578cafb1a2d56aff16f933c0626b4338a0ada846e620e26aaaeadf06de3a27b02b404c6a1b7c80b794dcb159d94f25fe78c34bdb44d8393f094ea37dd7de867be3c75d7dbe177dd0bc574e7cef57678bbe0cc63004038eb1206010000');
INSERT INTO public.deployment_exports VALUES ('prj_2Srvw21i254w8KGc', 1, 'haproxy-map-exact', '\x28b52ffd44004100e50500328d271f70a76d00e148a385245636b50d9d297bb88aab22d087419b12839aa18a884305b31e728ed3956a928a842bd66cf2757e8427cb09060c67bb34e6324700045cd5e68f860bb994b2351987548530dc1c94c6f6a3139f2288bd36180d4eab7b3b6d0a944feb56feff8522a198365b4eae4a9f091c1d6a21d7bced6972b9ca38b7431aaef32657a6e1772a2f4af99df8f488273af1e969b8cec15b6ea8bc100900416b53602a2f7d411a545706b3aa44942c976b64d6412298011e265d9f', '"097adbf1e00f961ecc6761651aabd1a5"', 'zstd', '\x1f8b080000096e8804ff74ce4d6ac4300cc5f17d4ef160282430b63b743737e8194a09c2964920fea8ac1497d2bb17ca64d7ecb410efffbb60a12aa57f9944d57027af77dcf0774038acc25e21fbc6884590a8ce4d056328be39eeb588369bc264f19aa10b234ac9ca39dc870b006051ad46f863e7a668ace69364d49eed313e7327af132ae972dd659b03fbeba3333a56ef1e4277709ae14e5e6da23afd5739fee04b60bc3cdfb0154fba968ca7b793fc3bd6886f9ce14c422c7b0ef8195c640e70d29aed691b7e0700784b747841010000');
INSERT INTO public.deployment_exports VALUES ('prj_2Srvw21i254w8KGc', 1, 'haproxy-map-prefix', '\x28b52ffd4400f201450b00925b4c23308bb601c3d960679289a8d9424ac295401a11d2171992015343e5ac0afc19c1ca02038940c368301951961699370cc7051a4683491ede683cbc6138becd7f146feef0a54748043c6069209493ba96038037a78dc9396f188ea772e98987cf82192675328825a57a380b2dacf13d11e9ca7d8f4eb9aa72172d6ac46244d1c96f4e682157f1bad9ff5f49065432f45c3c3f7cceda25bc256378278c72b97336757ae19564512dbbb95d4fd66f055f70eb5ddf416821cf1adff1eb568101c11fa4e0d281f6c9facbbd396d6cda9ceaaae19584a1c6e627eb73ea2ea66753e72c61def1174e6d5da7fb9eacbf19c946c6f005d294a5c6e7cd0969ce79b23e2b247d4ab248a867c1bdee45c970720a7148263c1e3e5fb79e6921c767ad0c0feec5e6371f8874e53ec5c347d110b97dc8ae0412000452a1c4900702f3b4b909061cd377ad415fe97262f55d3c5c7148eb1a953d918f65fc6159302c47ec8e1c75421e0b285414a2e48d09', '"201b33a2e815b07cdda2453e9d8db04c"', 'zstd', '\x1f8b080000096e8804ffbcd1316fdb400c05e05dbfe20146611b902dcb9992ad63b6ee4561d027ca778874bc9094ada2c87f2fe02a438b64edfeeef8f17185484565feb91ba9ec8a729fe627b43027753bdd9247984c1a18bd28462aa7335fb0e92458c3731175db8fdd765fad3052399df98292c28bc12363907c61738ce421a67c59beaa718be47c65bda78a26d1e489ad86099842c4903223906a6283478639f964d50a943b746c9e3279920ce9e191a1d3c0f0c818445ea682afdf9e17482f0a42218fe0d78906b820b92d6bedf19cef8a5e253be7aeae56a0de17db90321ba4ffab269e29386e9133cee211231503296332ee9eaa150020ba979df2ebc4e630f6dd9574e373de2b774939f8e94fdb5b14f2584f3a9c3a0ef5d2f0a6610fcd729be6fd892d17da8f54b61fcd790f2248c77838b418249027c9f8f2fd3340dd271ebacdb15e63bdfd81d4e3173ec32ed9b65e63bdc56e84b9e2e1d0e2eda3b5ffe51cff13e788b7aa391edac73bad210d315db9391edac7eaf7007f4e7644f2020000');


--
-- Data for Name: deployments; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.deployments VALUES ('prj_OKnrpfiEvltKAVrA', 1, 1772442046000000000, 'first', 0, 5, 3, '', '\x010802062f436166c3a9052f63616665ad020000808889d3c5a9fd983104092f61626f75742d7573062f61626f7574ad020000808889d3c5a9fd983106042f6f6c64042f6e6577ad020000808889d3c5a9fd9831080a2f73686f702f73616c65052f73616c65ad020000808889d3c5a9fd98310a052f7465616d132f61626f75743f73656374696f6e3d7465616dad020000808889d3c5a9fd98310e082f646f63732f76311c68747470733a2f2f646f63732e6578616d706c652e636f6d2f76312fad02010a808889d3c5a9fd98310c052f646f63731968747470733a2f2f646f63732e6578616d706c652e636f6d2fae020114808889d3c5a9fd983110052f73686f701968747470733a2f2f73686f702e6578616d706c652e636f6d2fae020128808889d3c5a9fd9831');
INSERT INTO public.deployments VALUES ('prj_OKnrpfiEvltKAVrA', 2, 1772442051000000000, 'second', 0, 5, 3, 'nginx-map-exact, haproxy-map-exact: exact rules with status 302 served as 301 (these maps have no status column): 1, e.g. /press
', '\x010802062f436166c3a9052f63616665ad020000808889d3c5a9fd983104092f61626f75742d7573072f61626f75742fad020000808889d3c5a9fd983106042f6f6c64042f6e6577ad020000808889d3c5a9fd983112062f7072657373102f6e6577733f66726f6d3d7072657373ae02000080d8b5c6d4a9fd9831080a2f73686f702f73616c65052f73616c65ad020000808889d3c5a9fd98310e082f646f63732f76311c68747470733a2f2f646f63732e6578616d706c652e636f6d2f76312fad02010a808889d3c5a9fd98310c052f646f63731968747470733a2f2f646f63732e6578616d706c652e636f6d2fae020114808889d3c5a9fd983110052f73686f701968747470733a2f2f73686f702e6578616d706c652e636f6d2fae020128808889d3c5a9fd9831');
INSERT INTO public.deployments VALUES ('prj_OKnrpfiEvltKAVrA', 3, 1772442053000000000, 'third', 0, 5, 4, 'nginx-map-exact, haproxy-map-exact: exact rules with status 302 served as 301 (these maps have no status column): 1, e.g. /press
', '\x010902062f436166c3a9052f63616665ad020000808889d3c5a9fd983104092f61626f75742d7573072f61626f75742fad020000808889d3c5a9fd983106042f6f6c64062f6e65776572ad020000808889d3c5a9fd983112062f7072657373102f6e6577733f66726f6d3d7072657373ae02000080d8b5c6d4a9fd9831080a2f73686f702f73616c65052f73616c65ad020000808889d3c5a9fd983114052f626c6f671968747470733a2f2f626c6f672e6578616d706c652e636f6d2fad02010280a0e5e6f9a9fd98310e082f646f63732f76311c68747470733a2f2f646f63732e6578616d706c652e636f6d2f76312fad02010a808889d3c5a9fd98310c052f646f63731968747470733a2f2f646f63732e6578616d706c652e636f6d2fae020114808889d3c5a9fd983110052f73686f701968747470733a2f2f73686f702e6578616d706c652e636f6d2fae020128808889d3c5a9fd9831');
INSERT INTO public.deployments VALUES ('prj_OKnrpfiEvltKAVrA', 4, 1772442054000000000, 'back to the first', 1, 5, 3, '', '\x010802062f436166c3a9052f63616665ad020000808889d3c5a9fd983104092f61626f75742d7573062f61626f7574ad020000808889d3c5a9fd983106042f6f6c64042f6e6577ad020000808889d3c5a9fd9831080a2f73686f702f73616c65052f73616c65ad020000808889d3c5a9fd98310a052f7465616d132f61626f75743f73656374696f6e3d7465616dad020000808889d3c5a9fd98310e082f646f63732f76311c68747470733a2f2f646f63732e6578616d706c652e636f6d2f76312fad02010a808889d3c5a9fd98310c052f646f63731968747470733a2f2f646f63732e6578616d706c652e636f6d2fae020114808889d3c5a9fd983110052f73686f701968747470733a2f2f73686f702e6578616d706c652e636f6d2fae020128808889d3c5a9fd9831');
INSERT INTO public.deployments VALUES ('prj_2Srvw21i254w8KGc', 1, 1772442056000000000, '', 0, 1, 1, '', '\x010216052f66656564082f7273732e786d6cad0200008098e89390aafd983118052f323031390d2f617263686976652f32303139ad0201008098e89390aafd9831');


--
-- Data for Name: events; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.events VALUES (1, 'org', 'org_no9ulNNtcytaF35u', '', 0, 1772442001000000000);
INSERT INTO public.events VALUES (2, 'org', 'org_BP8mwjSpnKH5e1QU', '', 0, 1772442003000000000);
INSERT INTO public.events VALUES (3, 'org', 'org_BP8mwjSpnKH5e1QU', '', 0, 1772442006000000000);
INSERT INTO public.events VALUES (4, 'project', 'org_no9ulNNtcytaF35u', 'prj_OKnrpfiEvltKAVrA', 0, 1772442033000000000);
INSERT INTO public.events VALUES (5, 'project', 'org_no9ulNNtcytaF35u', 'prj_2Srvw21i254w8KGc', 0, 1772442035000000000);
INSERT INTO public.events VALUES (6, 'project', 'org_BP8mwjSpnKH5e1QU', 'prj_Qe6BTMJ5dCxitzfY', 0, 1772442037000000000);
INSERT INTO public.events VALUES (7, 'project', 'org_BP8mwjSpnKH5e1QU', 'prj_Qe6BTMJ5dCxitzfY', 0, 1772442040000000000);
INSERT INTO public.events VALUES (8, 'deploy', 'org_no9ulNNtcytaF35u', 'prj_OKnrpfiEvltKAVrA', 1, 1772442046000000000);
INSERT INTO public.events VALUES (9, 'deploy', 'org_no9ulNNtcytaF35u', 'prj_OKnrpfiEvltKAVrA', 2, 1772442051000000000);
INSERT INTO public.events VALUES (10, 'deploy', 'org_no9ulNNtcytaF35u', 'prj_OKnrpfiEvltKAVrA', 3, 1772442053000000000);
INSERT INTO public.events VALUES (11, 'deploy', 'org_no9ulNNtcytaF35u', 'prj_OKnrpfiEvltKAVrA', 4, 1772442054000000000);
INSERT INTO public.events VALUES (12, 'deploy', 'org_no9ulNNtcytaF35u', 'prj_2Srvw21i254w8KGc', 1, 1772442056000000000);
INSERT INTO public.events VALUES (13, 'key', 'org_no9ulNNtcytaF35u', 'prj_OKnrpfiEvltKAVrA', 0, 1772442059000000000);
INSERT INTO public.events VALUES (14, 'key', 'org_no9ulNNtcytaF35u', 'prj_OKnrpfiEvltKAVrA', 0, 1772442062000000000);
INSERT INTO public.events VALUES (15, 'key', 'org_no9ulNNtcytaF35u', 'prj_OKnrpfiEvltKAVrA', 0, 1772442065000000000);
INSERT INTO public.events VALUES (16, 'key', 'org_no9ulNNtcytaF35u', 'prj_OKnrpfiEvltKAVrA', 0, 1772442067000000000);
INSERT INTO public.events VALUES (17, 'key', 'org_no9ulNNtcytaF35u', 'prj_2Srvw21i254w8KGc', 0, 1772442070000000000);
INSERT INTO public.events VALUES (18, 'key', 'org_no9ulNNtcytaF35u', 'prj_2Srvw21i254w8KGc', 0, 1772442073000000000);
INSERT INTO public.events VALUES (19, 'key', 'org_no9ulNNtcytaF35u', 'prj_2Srvw21i254w8KGc', 0, 1772442076000000000);
INSERT INTO public.events VALUES (20, 'key', 'org_no9ulNNtcytaF35u', 'prj_2Srvw21i254w8KGc', 0, 1772442078000000000);
INSERT INTO public.events VALUES (21, 'key', 'org_BP8mwjSpnKH5e1QU', 'prj_Qe6BTMJ5dCxitzfY', 0, 1772442081000000000);
INSERT INTO public.events VALUES (22, 'key', 'org_BP8mwjSpnKH5e1QU', 'prj_Qe6BTMJ5dCxitzfY', 0, 1772442083000000000);


--
-- Data for Name: keys; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.keys VALUES ('key_Ar0qyBNlsM33zfhW', 1, 'prj_OKnrpfiEvltKAVrA', 'prod', false, 'e74272bd87875dc08808881be835cbdbee185958a551272186cf7d8b4ecfea40', 'uGVS', 1772442058000000000, NULL);
INSERT INTO public.keys VALUES ('key_QHKHo9pItRlnJvKu', 2, 'prj_OKnrpfiEvltKAVrA', 'ci', true, '1c73763f6143a36bd67096f608ac069708141a08d47d50ed2180b7e79ec3b79e', 'gtfW', 1772442061000000000, NULL);
INSERT INTO public.keys VALUES ('key_pMzxUSk9dT8fPTpj', 3, 'prj_OKnrpfiEvltKAVrA', 'old', false, '54c6abcc5dd3ef5df01d455ec07b0083231200acf54168310e027c36202bed73', 'v8e9', 1772442064000000000, 1772442067000000000);
INSERT INTO public.keys VALUES ('key_dP12lEcesxLv0MOX', 4, 'prj_2Srvw21i254w8KGc', 'prod', false, 'b7fec2da308552788d5054e7cfeb0a3f2a2b9e963b28ea7b69ec4a062a2817db', '1iSL', 1772442069000000000, NULL);
INSERT INTO public.keys VALUES ('key_TO7qLiVNZ3H75E32', 5, 'prj_2Srvw21i254w8KGc', 'ci', true, 'd44bb2acb9aad511da5a9379d026770a56a11333d4688f931f93787b418d4bbf', 'SHn7', 1772442072000000000, NULL);
INSERT INTO public.keys VALUES ('key_hr0aziOfUlrcRhlZ', 6, 'prj_2Srvw21i254w8KGc', 'old', false, '909e7b8bc706b955cf2e0a322ee2cad563c691cbeb1405d2fa12baa80515be83', 'ddUi', 1772442075000000000, 1772442078000000000);
INSERT INTO public.keys VALUES ('key_uAz3syz8RQLZ4wMj', 7, 'prj_Qe6BTMJ5dCxitzfY', 'by secret', false, 'c20cbe9b7a07784b0587042bb76d657d3fc2f77ed24f0d98536724898715e13e', 'uA6J', 1772442080000000000, 1772442083000000000);


--
-- Data for Name: management_tokens; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.management_tokens VALUES ('tok_ZH4INVMjpFI54EQw', 1, 'org_no9ulNNtcytaF35u', 'editor', 'deploy bot', '889a7e610f5f7f1a859aeb29eaf1e486c78516fb00218b3bd264eb34243b4a62', 'NS8e', 'usr_iFGPvg9PBVsf9D3R', 1772442021000000000, NULL, NULL, NULL);
INSERT INTO public.management_tokens VALUES ('tok_4VZs1L6Z8jdKbUl9', 2, 'org_no9ulNNtcytaF35u', 'viewer', 'old bot', '6114cca3f91a8d0e7979cae1be48e65a508124f045ef10f46e81745109296102', 'xxKA', 'usr_iFGPvg9PBVsf9D3R', 1772442023000000000, NULL, NULL, 1772442025000000000);
INSERT INTO public.management_tokens VALUES ('tok_6feb5SaIuAshVgHi', 3, 'org_BP8mwjSpnKH5e1QU', 'editor', 'carol''s', '7d406d178f0720e6670388510c10481a87a11a0a3cdcbdd38a005497b62aa8e6', 'dZ8d', 'usr_KshMm2tndcGUuwKt', 1772442027000000000, 1780218027000000000, NULL, 1772442030000000000);


--
-- Data for Name: members; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.members VALUES ('org_no9ulNNtcytaF35u', 'usr_iFGPvg9PBVsf9D3R', 1, 'owner', 1772442013000000000);
INSERT INTO public.members VALUES ('org_no9ulNNtcytaF35u', 'usr_EIPrZtcLFg5CrMQU', 2, 'editor', 1772442015000000000);
INSERT INTO public.members VALUES ('org_BP8mwjSpnKH5e1QU', 'usr_EIPrZtcLFg5CrMQU', 3, 'viewer', 1772442017000000000);
INSERT INTO public.members VALUES ('org_BP8mwjSpnKH5e1QU', 'usr_KshMm2tndcGUuwKt', 4, 'editor', 1772442019000000000);


--
-- Data for Name: misses; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.misses VALUES ('prj_OKnrpfiEvltKAVrA', '/missing', 9, 1772452800000000000, 1772456400000000000);
INSERT INTO public.misses VALUES ('prj_OKnrpfiEvltKAVrA', '/typo', 2, 1772452800000000000, 1772452800000000000);


--
-- Data for Name: orgs; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.orgs VALUES ('org_no9ulNNtcytaF35u', 1, 'acme', 'enterprise', NULL, NULL, 1772442001000000000);
INSERT INTO public.orgs VALUES ('org_BP8mwjSpnKH5e1QU', 2, 'globex corp', 'pro', NULL, 5000, 1772442003000000000);


--
-- Data for Name: project_tests; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.project_tests VALUES ('prj_OKnrpfiEvltKAVrA', 'path,status,destination
/old,301,/new
/gone,none,
');


--
-- Data for Name: projects; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.projects VALUES ('prj_2Srvw21i254w8KGc', 2, 'org_no9ulNNtcytaF35u', 'blog', 1772442035000000000, 20, 10, '');
INSERT INTO public.projects VALUES ('prj_Qe6BTMJ5dCxitzfY', 3, 'org_BP8mwjSpnKH5e1QU', 'store', 1772442037000000000, 20, 10, '');
INSERT INTO public.projects VALUES ('prj_OKnrpfiEvltKAVrA', 1, 'org_no9ulNNtcytaF35u', 'site', 1772442033000000000, 2, 30, 'www.example.com
example.com');


--
-- Data for Name: rule_counts; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.rule_counts VALUES ('prj_OKnrpfiEvltKAVrA', 9);
INSERT INTO public.rule_counts VALUES ('prj_2Srvw21i254w8KGc', 2);
INSERT INTO public.rule_counts VALUES ('prj_Qe6BTMJ5dCxitzfY', 1);


--
-- Data for Name: rule_hits; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.rule_hits VALUES ('prj_2Srvw21i254w8KGc', 'exact', '/feed', 1, 1772452800000000000);
INSERT INTO public.rule_hits VALUES ('prj_OKnrpfiEvltKAVrA', 'exact', '/old', 12, 1772452800000000000);
INSERT INTO public.rule_hits VALUES ('prj_OKnrpfiEvltKAVrA', 'starts_with', '/docs', 5, 1772452860000000000);


--
-- Data for Name: rules; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.rules VALUES (1, 'prj_OKnrpfiEvltKAVrA', 'exact', '/Café', '/cafe', 301, 0, 1772442045000000000, 1);
INSERT INTO public.rules VALUES (4, 'prj_OKnrpfiEvltKAVrA', 'exact', '/shop/sale', '/sale', 301, 0, 1772442045000000000, 1);
INSERT INTO public.rules VALUES (6, 'prj_OKnrpfiEvltKAVrA', 'starts_with', '/docs', 'https://docs.example.com/', 302, 10, 1772442045000000000, 1);
INSERT INTO public.rules VALUES (7, 'prj_OKnrpfiEvltKAVrA', 'starts_with', '/docs/v1', 'https://docs.example.com/v1/', 301, 5, 1772442045000000000, 1);
INSERT INTO public.rules VALUES (8, 'prj_OKnrpfiEvltKAVrA', 'starts_with', '/shop', 'https://shop.example.com/', 302, 20, 1772442045000000000, 1);
INSERT INTO public.rules VALUES (9, 'prj_OKnrpfiEvltKAVrA', 'exact', '/press', '/news?from=press', 302, 0, 1772442047000000000, 1);
INSERT INTO public.rules VALUES (2, 'prj_OKnrpfiEvltKAVrA', 'exact', '/about-us', '/about/', 301, 0, 1772442045000000000, 2);
INSERT INTO public.rules VALUES (3, 'prj_OKnrpfiEvltKAVrA', 'exact', '/old', '/newer', 301, 0, 1772442045000000000, 2);
INSERT INTO public.rules VALUES (10, 'prj_OKnrpfiEvltKAVrA', 'starts_with', '/blog', 'https://blog.example.com/', 301, 1, 1772442052000000000, 1);
INSERT INTO public.rules VALUES (11, 'prj_2Srvw21i254w8KGc', 'exact', '/feed', '/rss.xml', 301, 0, 1772442055000000000, 1);
INSERT INTO public.rules VALUES (12, 'prj_2Srvw21i254w8KGc', 'starts_with', '/2019', '/archive/2019', 301, 0, 1772442055000000000, 1);
INSERT INTO public.rules VALUES (13, 'prj_Qe6BTMJ5dCxitzfY', 'exact', '/cart', '/basket', 302, 0, 1772442057000000000, 1);


--
-- Data for Name: schema_migrations; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.schema_migrations VALUES (1, '0001_initial', 1795705214138072045, '32fd8857681c10af3e269711ee9ae8c622dc0c202a38d1398a737cc7c7d5a954');
INSERT INTO public.schema_migrations VALUES (2, '0002_accounts', 1795705214557538235, 'd48b0d6b8f59a1ef5980feccfa17e5e1f9f126c6d283f3a5202e832278d50c5e');
INSERT INTO public.schema_migrations VALUES (3, '0003_rules_ops', 1795705214592720674, '35fa7cf9e2c7ff2b77a781e7086b20f02f570dade932255884bdd60af1c993cd');
INSERT INTO public.schema_migrations VALUES (4, '0004_usage_daily', 1795705214706897630, 'd719f7b4c7f1d3c40c8fa8d3101db1389a1385ba69cb66ee23e26208f08ad850');
INSERT INTO public.schema_migrations VALUES (5, '0005_deploy_gate', 1795705214735302623, '97b0ebe30704ce8ba42e230f1501a852b0a1ce8eeedaed2f7dd41a4b54a3088d');
INSERT INTO public.schema_migrations VALUES (6, '0006_project_hosts', 1795705214736261478, '00f07cd957e5522ade0f3f2b43f971863b623ce05db384c50a7634f00802ea5b');
INSERT INTO public.schema_migrations VALUES (7, '0007_compressed_exports', 1795705214739183657, 'd32f9c33fabe195acf4ecd74ad329df6b8db30655068b0f95e81ad247aef3fe9');
INSERT INTO public.schema_migrations VALUES (8, '0008_insight', 1795705214810649678, '94bc79aa08a9cf94f45b3f10cbbbc1f213581cfacaef642f055e0344cc8c7c47');


--
-- Data for Name: sessions; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.sessions VALUES ('ses_nEEqoOsNch4UsSmu', '02f5a1ff43fc2af555ee42278e3d881a1b71ba3361d3a929bb062801542e7159', 'usr_iFGPvg9PBVsf9D3R', 'HzI6aMoSaRw0Lf2bqlIzjEDhKIlqVnS4', 1772442029000000000, 1772528429000000000, 1772442029000000000);


--
-- Data for Name: usage; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.usage VALUES ('org_BP8mwjSpnKH5e1QU', '2026-03', 56);
INSERT INTO public.usage VALUES ('org_no9ulNNtcytaF35u', '2026-03', 1235);


--
-- Data for Name: usage_daily; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.usage_daily VALUES ('org_no9ulNNtcytaF35u', '2026-03-01', 'key_Ar0qyBNlsM33zfhW', 40);
INSERT INTO public.usage_daily VALUES ('org_no9ulNNtcytaF35u', '2026-03-02', 'key_Ar0qyBNlsM33zfhW', 7);
INSERT INTO public.usage_daily VALUES ('org_no9ulNNtcytaF35u', '2026-03-02', 'key_QHKHo9pItRlnJvKu', 3);
INSERT INTO public.usage_daily VALUES ('org_no9ulNNtcytaF35u', '2026-03-01', 'key_dP12lEcesxLv0MOX', 40);
INSERT INTO public.usage_daily VALUES ('org_no9ulNNtcytaF35u', '2026-03-02', 'key_TO7qLiVNZ3H75E32', 3);
INSERT INTO public.usage_daily VALUES ('org_no9ulNNtcytaF35u', '2026-03-02', 'key_dP12lEcesxLv0MOX', 7);


--
-- Data for Name: users; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.users VALUES ('usr_iFGPvg9PBVsf9D3R', 1, 'alice@example.com', '$argon2id$v=19$m=19456,t=2,p=1$hLa7UokobPwbU2IS0aex7g$0SMiALRVYQTJQiX2UxXw30+PtsrosBRbtVz9MRIIiig', true, 1772442007000000000, NULL);
INSERT INTO public.users VALUES ('usr_EIPrZtcLFg5CrMQU', 2, 'bob@example.com', '$argon2id$v=19$m=19456,t=2,p=1$hLa7UokobPwbU2IS0aex7g$0SMiALRVYQTJQiX2UxXw30+PtsrosBRbtVz9MRIIiig', false, 1772442009000000000, NULL);
INSERT INTO public.users VALUES ('usr_KshMm2tndcGUuwKt', 3, 'carol@example.com', '$argon2id$v=19$m=19456,t=2,p=1$hLa7UokobPwbU2IS0aex7g$0SMiALRVYQTJQiX2UxXw30+PtsrosBRbtVz9MRIIiig', false, 1772442011000000000, 1772442030000000000);


--
-- Name: audit_log_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.audit_log_id_seq', 47, true);


--
-- Name: events_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.events_id_seq', 22, true);


--
-- Name: keys_seq_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.keys_seq_seq', 7, true);


--
-- Name: management_tokens_seq_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.management_tokens_seq_seq', 3, true);


--
-- Name: members_seq_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.members_seq_seq', 4, true);


--
-- Name: orgs_seq_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.orgs_seq_seq', 2, true);


--
-- Name: projects_seq_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.projects_seq_seq', 3, true);


--
-- Name: rules_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.rules_id_seq', 13, true);


--
-- Name: users_seq_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.users_seq_seq', 3, true);


--
-- Name: audit_log audit_log_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.audit_log
    ADD CONSTRAINT audit_log_pkey PRIMARY KEY (id);


--
-- Name: deployment_exports deployment_exports_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.deployment_exports
    ADD CONSTRAINT deployment_exports_pkey PRIMARY KEY (project_id, version, format);


--
-- Name: deployments deployments_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.deployments
    ADD CONSTRAINT deployments_pkey PRIMARY KEY (project_id, version);


--
-- Name: events events_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.events
    ADD CONSTRAINT events_pkey PRIMARY KEY (id);


--
-- Name: keys keys_hash_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.keys
    ADD CONSTRAINT keys_hash_key UNIQUE (hash);


--
-- Name: keys keys_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.keys
    ADD CONSTRAINT keys_pkey PRIMARY KEY (id);


--
-- Name: management_tokens management_tokens_hash_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.management_tokens
    ADD CONSTRAINT management_tokens_hash_key UNIQUE (hash);


--
-- Name: management_tokens management_tokens_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.management_tokens
    ADD CONSTRAINT management_tokens_pkey PRIMARY KEY (id);


--
-- Name: members members_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.members
    ADD CONSTRAINT members_pkey PRIMARY KEY (org_id, user_id);


--
-- Name: misses misses_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.misses
    ADD CONSTRAINT misses_pkey PRIMARY KEY (project_id, path);


--
-- Name: orgs orgs_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.orgs
    ADD CONSTRAINT orgs_pkey PRIMARY KEY (id);


--
-- Name: project_tests project_tests_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.project_tests
    ADD CONSTRAINT project_tests_pkey PRIMARY KEY (project_id);


--
-- Name: projects projects_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.projects
    ADD CONSTRAINT projects_pkey PRIMARY KEY (id);


--
-- Name: rule_counts rule_counts_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.rule_counts
    ADD CONSTRAINT rule_counts_pkey PRIMARY KEY (project_id);


--
-- Name: rule_hits rule_hits_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.rule_hits
    ADD CONSTRAINT rule_hits_pkey PRIMARY KEY (project_id, match_type, source);


--
-- Name: rules rules_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.rules
    ADD CONSTRAINT rules_pkey PRIMARY KEY (id);


--
-- Name: rules rules_project_id_match_type_source_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.rules
    ADD CONSTRAINT rules_project_id_match_type_source_key UNIQUE (project_id, match_type, source);


--
-- Name: schema_migrations schema_migrations_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.schema_migrations
    ADD CONSTRAINT schema_migrations_pkey PRIMARY KEY (version);


--
-- Name: sessions sessions_hash_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.sessions
    ADD CONSTRAINT sessions_hash_key UNIQUE (hash);


--
-- Name: sessions sessions_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.sessions
    ADD CONSTRAINT sessions_pkey PRIMARY KEY (id);


--
-- Name: usage_daily usage_daily_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.usage_daily
    ADD CONSTRAINT usage_daily_pkey PRIMARY KEY (org_id, day, key_id);


--
-- Name: usage usage_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.usage
    ADD CONSTRAINT usage_pkey PRIMARY KEY (org_id, period);


--
-- Name: users users_email_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.users
    ADD CONSTRAINT users_email_key UNIQUE (email);


--
-- Name: users users_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.users
    ADD CONSTRAINT users_pkey PRIMARY KEY (id);


--
-- Name: audit_log_at; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX audit_log_at ON public.audit_log USING btree (at);


--
-- Name: audit_log_org_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX audit_log_org_id ON public.audit_log USING btree (org_id, id);


--
-- Name: audit_log_project_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX audit_log_project_id ON public.audit_log USING btree (project_id, id);


--
-- Name: keys_project_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX keys_project_id ON public.keys USING btree (project_id);


--
-- Name: management_tokens_created_by; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX management_tokens_created_by ON public.management_tokens USING btree (created_by);


--
-- Name: management_tokens_org_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX management_tokens_org_id ON public.management_tokens USING btree (org_id);


--
-- Name: members_user_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX members_user_id ON public.members USING btree (user_id);


--
-- Name: misses_by_count; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX misses_by_count ON public.misses USING btree (project_id, count DESC, path);


--
-- Name: projects_org_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX projects_org_id ON public.projects USING btree (org_id);


--
-- Name: rule_hits_by_source; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX rule_hits_by_source ON public.rule_hits USING btree (project_id, source);


--
-- Name: rules_project_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX rules_project_id ON public.rules USING btree (project_id, id);


--
-- Name: sessions_user_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX sessions_user_id ON public.sessions USING btree (user_id);


--
-- Name: usage_period; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX usage_period ON public.usage USING btree (period);


--
-- Name: projects projects_delete_rules; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER projects_delete_rules AFTER DELETE ON public.projects FOR EACH ROW EXECUTE FUNCTION public.delete_project_rules();


--
-- Name: rules rules_count_delete; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER rules_count_delete AFTER DELETE ON public.rules REFERENCING OLD TABLE AS deleted_rules FOR EACH STATEMENT EXECUTE FUNCTION public.count_deleted_rules();


--
-- Name: rules rules_count_insert; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER rules_count_insert AFTER INSERT ON public.rules REFERENCING NEW TABLE AS inserted_rules FOR EACH STATEMENT EXECUTE FUNCTION public.count_inserted_rules();


--
-- Name: deployment_exports deployment_exports_project_id_version_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.deployment_exports
    ADD CONSTRAINT deployment_exports_project_id_version_fkey FOREIGN KEY (project_id, version) REFERENCES public.deployments(project_id, version) ON DELETE CASCADE;


--
-- Name: deployments deployments_project_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.deployments
    ADD CONSTRAINT deployments_project_id_fkey FOREIGN KEY (project_id) REFERENCES public.projects(id) ON DELETE CASCADE;


--
-- Name: keys keys_project_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.keys
    ADD CONSTRAINT keys_project_id_fkey FOREIGN KEY (project_id) REFERENCES public.projects(id) ON DELETE CASCADE;


--
-- Name: management_tokens management_tokens_created_by_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.management_tokens
    ADD CONSTRAINT management_tokens_created_by_fkey FOREIGN KEY (created_by) REFERENCES public.users(id) ON DELETE SET NULL;


--
-- Name: management_tokens management_tokens_org_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.management_tokens
    ADD CONSTRAINT management_tokens_org_id_fkey FOREIGN KEY (org_id) REFERENCES public.orgs(id) ON DELETE CASCADE;


--
-- Name: members members_org_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.members
    ADD CONSTRAINT members_org_id_fkey FOREIGN KEY (org_id) REFERENCES public.orgs(id) ON DELETE CASCADE;


--
-- Name: members members_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.members
    ADD CONSTRAINT members_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id) ON DELETE CASCADE;


--
-- Name: misses misses_project_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.misses
    ADD CONSTRAINT misses_project_id_fkey FOREIGN KEY (project_id) REFERENCES public.projects(id) ON DELETE CASCADE;


--
-- Name: project_tests project_tests_project_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.project_tests
    ADD CONSTRAINT project_tests_project_id_fkey FOREIGN KEY (project_id) REFERENCES public.projects(id) ON DELETE CASCADE;


--
-- Name: projects projects_org_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.projects
    ADD CONSTRAINT projects_org_id_fkey FOREIGN KEY (org_id) REFERENCES public.orgs(id) ON DELETE CASCADE;


--
-- Name: rule_hits rule_hits_project_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.rule_hits
    ADD CONSTRAINT rule_hits_project_id_fkey FOREIGN KEY (project_id) REFERENCES public.projects(id) ON DELETE CASCADE;


--
-- Name: sessions sessions_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.sessions
    ADD CONSTRAINT sessions_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id) ON DELETE CASCADE;


--
-- Name: usage_daily usage_daily_org_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.usage_daily
    ADD CONSTRAINT usage_daily_org_id_fkey FOREIGN KEY (org_id) REFERENCES public.orgs(id) ON DELETE CASCADE;


--
-- Name: usage usage_org_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.usage
    ADD CONSTRAINT usage_org_id_fkey FOREIGN KEY (org_id) REFERENCES public.orgs(id) ON DELETE CASCADE;


--
-- PostgreSQL database dump complete
--

\unrestrict rWYdymgQVHyeR1E0PBOA6s9uobX93BMvFTrezdOfRAPQExB53qiRkhlmIt4bboy

