/*
 * risk.c — the risk floor shared by every language (see risk.h, docs/risk.md).
 */
#include "codemode/risk.h"

/* The least risk an action has in any language, and why. */
static sluice_risk floor_for(sluice_action action, const char **reason)
{
    switch (action) {
    case SLUICE_ACTION_READ:
        *reason = "reads data";
        return SLUICE_RISK_LOW;
    case SLUICE_ACTION_WRITE:
        *reason = "changes data";
        return SLUICE_RISK_HIGH;
    case SLUICE_ACTION_DELETE:
        *reason = "deletes data";
        return SLUICE_RISK_CRITICAL;
    case SLUICE_ACTION_ADMIN:
        break;
    }
    *reason = "changes the structure of the system or the server";
    return SLUICE_RISK_CRITICAL;
}

sluice_risk
sluice_risk_assess(const sluice_frontend *fe, const sluice_codefacts *facts, const char **reason)
{
    const char *why = "the program was refused";
    sluice_risk risk = SLUICE_RISK_CRITICAL;
    if (facts != NULL && !sluice_codefacts_refused(facts)) {
        risk = floor_for(facts->action, &why);
        const char *lang_why = NULL;
        sluice_risk lang =
            fe != NULL && fe->risk != NULL ? fe->risk(facts, &lang_why) : SLUICE_RISK_LOW;
        if (lang_why != NULL && lang >= risk) {
            risk = lang;
            why = lang_why;
        }
    }
    if (reason != NULL)
        *reason = why;
    return risk;
}
