/*
 * value.c — Cedar values: construction, equality, record lookup and printing.
 *
 * Owns: what "equal" means (== across kinds is false, sets compare as sets, records by key),
 * record field order (sorted by key bytes) and the Cedar-syntax rendering of a value.
 * Does not own: operators (eval.c) or the extension types' own rules (ipaddr.c, ...).
 */
#include "policy/cedar/ast.h"

#include <stdlib.h>
#include <string.h>

/* FNV-1a over type, a separator, then id: cheap, and only used to reject unequal uids fast. */
void sluice_cedar_uid_make(
    sluice_cedar_uid *uid, const char *type, size_t type_len, const char *id, size_t id_len)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < type_len; i++)
        h = (h ^ (unsigned char)type[i]) * 1099511628211ull;
    h = (h ^ 0xffu) * 1099511628211ull;
    for (size_t i = 0; i < id_len; i++)
        h = (h ^ (unsigned char)id[i]) * 1099511628211ull;
    uid->type = type;
    uid->type_len = (uint32_t)type_len;
    uid->id = id;
    uid->id_len = (uint32_t)id_len;
    uid->hash = h;
}

bool sluice_cedar_uid_eq(const sluice_cedar_uid *a, const sluice_cedar_uid *b)
{
    return a == b ||
           (a->hash == b->hash && a->type_len == b->type_len && a->id_len == b->id_len &&
            memcmp(a->type, b->type, a->type_len) == 0 && memcmp(a->id, b->id, a->id_len) == 0);
}

sluice_cedar_value sluice_cedar_value_bool(bool b)
{
    sluice_cedar_value v = { .kind = SLUICE_CEDAR_BOOL };
    v.u.b = b;
    return v;
}

sluice_cedar_value sluice_cedar_value_long(int64_t l)
{
    sluice_cedar_value v = { .kind = SLUICE_CEDAR_LONG };
    v.u.l = l;
    return v;
}

sluice_cedar_value sluice_cedar_value_string(const char *s, size_t len)
{
    sluice_cedar_value v = { .kind = SLUICE_CEDAR_STRING, .len = (uint32_t)len };
    v.u.s = s;
    return v;
}

sluice_cedar_value sluice_cedar_value_set(const sluice_cedar_value *items, size_t count)
{
    sluice_cedar_value v = { .kind = SLUICE_CEDAR_SET, .len = (uint32_t)count };
    v.u.items = items;
    return v;
}

int sluice_cedar_key_cmp(const char *a, size_t alen, const char *b, size_t blen)
{
    int c = memcmp(a, b, alen < blen ? alen : blen);
    if (c != 0)
        return c;
    return alen < blen ? -1 : alen > blen ? 1 : 0;
}

static int field_cmp(const void *x, const void *y)
{
    const sluice_cedar_field *a = x, *b = y;
    return sluice_cedar_key_cmp(a->key, a->key_len, b->key, b->key_len);
}

sluice_status
sluice_cedar_value_record(sluice_cedar_field *fields, size_t count, sluice_cedar_value *out)
{
    if (count > 1)
        qsort(fields, count, sizeof(*fields), field_cmp);
    for (size_t i = 1; i < count; i++) {
        if (field_cmp(&fields[i - 1], &fields[i]) == 0)
            return SLUICE_E_INVALID;
    }
    out->kind = SLUICE_CEDAR_RECORD;
    out->len = (uint32_t)count;
    out->u.fields = fields;
    return SLUICE_OK;
}

const sluice_cedar_value *
sluice_cedar_record_get(const sluice_cedar_value *record, const char *key, size_t key_len)
{
    size_t lo = 0, hi = record->len;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const sluice_cedar_field *f = &record->u.fields[mid];
        int c = sluice_cedar_key_cmp(f->key, f->key_len, key, key_len);
        if (c == 0)
            return &f->value;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

static bool set_contains(const sluice_cedar_value *set, const sluice_cedar_value *x)
{
    for (uint32_t i = 0; i < set->len; i++) {
        if (sluice_cedar_value_equal(&set->u.items[i], x))
            return true;
    }
    return false;
}

/* Sets are sets: [1, 1] == [1], so compare by mutual inclusion, not by length. */
static bool set_equal(const sluice_cedar_value *a, const sluice_cedar_value *b)
{
    for (uint32_t i = 0; i < a->len; i++) {
        if (!set_contains(b, &a->u.items[i]))
            return false;
    }
    for (uint32_t i = 0; i < b->len; i++) {
        if (!set_contains(a, &b->u.items[i]))
            return false;
    }
    return true;
}

static bool record_equal(const sluice_cedar_value *a, const sluice_cedar_value *b)
{
    if (a->len != b->len)
        return false;
    for (uint32_t i = 0; i < a->len; i++) {
        const sluice_cedar_field *x = &a->u.fields[i], *y = &b->u.fields[i];
        if (sluice_cedar_key_cmp(x->key, x->key_len, y->key, y->key_len) != 0 ||
            !sluice_cedar_value_equal(&x->value, &y->value))
            return false;
    }
    return true;
}

bool sluice_cedar_value_equal(const sluice_cedar_value *a, const sluice_cedar_value *b)
{
    if (a->kind != b->kind)
        return false;
    switch (a->kind) {
    case SLUICE_CEDAR_BOOL:
        return a->u.b == b->u.b;
    case SLUICE_CEDAR_LONG:
    case SLUICE_CEDAR_DECIMAL:
    case SLUICE_CEDAR_DATETIME:
    case SLUICE_CEDAR_DURATION:
        return a->u.l == b->u.l;
    case SLUICE_CEDAR_STRING:
        return a->len == b->len && memcmp(a->u.s, b->u.s, a->len) == 0;
    case SLUICE_CEDAR_ENTITY:
        return sluice_cedar_uid_eq(a->u.uid, b->u.uid);
    case SLUICE_CEDAR_SET:
        return set_equal(a, b);
    case SLUICE_CEDAR_RECORD:
        return record_equal(a, b);
    case SLUICE_CEDAR_IPADDR:
        return sluice_cedar_ip_equal(a->u.ip, b->u.ip);
    default:
        return false;
    }
}

const char *sluice_cedar_kind_name(uint32_t kind)
{
    static const char *const names[] = { "bool",   "long",   "string",  "entity",   "set",
                                         "record", "ipaddr", "decimal", "datetime", "duration" };
    return kind < sizeof(names) / sizeof(names[0]) ? names[kind] : "unknown";
}

/* Cedar string literal syntax, so the printed form parses back. */
static void print_string(sluice_buf *buf, const char *s, size_t len)
{
    sluice_buf_putc(buf, '"');
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\') {
            sluice_buf_putc(buf, '\\');
            sluice_buf_putc(buf, (char)c);
        } else if (c == '\n') {
            sluice_buf_puts(buf, "\\n");
        } else if (c < 0x20 || c == 0x7f) {
            sluice_buf_printf(buf, "\\u{%x}", c);
        } else {
            sluice_buf_putc(buf, (char)c);
        }
    }
    sluice_buf_putc(buf, '"');
}

void sluice_cedar_uid_print(sluice_buf *buf, const sluice_cedar_uid *uid)
{
    sluice_buf_append(buf, uid->type, uid->type_len);
    sluice_buf_puts(buf, "::");
    print_string(buf, uid->id, uid->id_len);
}

void sluice_cedar_value_print(sluice_buf *buf, const sluice_cedar_value *v)
{
    switch (v->kind) {
    case SLUICE_CEDAR_BOOL:
        sluice_buf_puts(buf, v->u.b ? "true" : "false");
        break;
    case SLUICE_CEDAR_LONG:
        sluice_buf_printf(buf, "%lld", (long long)v->u.l);
        break;
    case SLUICE_CEDAR_STRING:
        print_string(buf, v->u.s, v->len);
        break;
    case SLUICE_CEDAR_ENTITY:
        sluice_cedar_uid_print(buf, v->u.uid);
        break;
    case SLUICE_CEDAR_SET:
        sluice_buf_putc(buf, '[');
        for (uint32_t i = 0; i < v->len; i++) {
            if (i > 0)
                sluice_buf_puts(buf, ", ");
            sluice_cedar_value_print(buf, &v->u.items[i]);
        }
        sluice_buf_putc(buf, ']');
        break;
    case SLUICE_CEDAR_RECORD:
        sluice_buf_putc(buf, '{');
        for (uint32_t i = 0; i < v->len; i++) {
            if (i > 0)
                sluice_buf_puts(buf, ", ");
            print_string(buf, v->u.fields[i].key, v->u.fields[i].key_len);
            sluice_buf_puts(buf, ": ");
            sluice_cedar_value_print(buf, &v->u.fields[i].value);
        }
        sluice_buf_putc(buf, '}');
        break;
    case SLUICE_CEDAR_IPADDR:
        sluice_buf_puts(buf, "ip(\"");
        sluice_cedar_ip_print(buf, v->u.ip);
        sluice_buf_puts(buf, "\")");
        break;
    case SLUICE_CEDAR_DECIMAL:
        sluice_buf_puts(buf, "decimal(\"");
        sluice_cedar_decimal_print(buf, v->u.l);
        sluice_buf_puts(buf, "\")");
        break;
    case SLUICE_CEDAR_DATETIME:
        sluice_cedar_datetime_print(buf, v->u.l);
        break;
    case SLUICE_CEDAR_DURATION:
        sluice_buf_printf(buf, "duration(\"%lldms\")", (long long)v->u.l);
        break;
    default:
        sluice_buf_puts(buf, "<?>");
    }
}
