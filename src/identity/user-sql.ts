/*
 * The users table as other features' SQL may use it: the audit trail names each entry's actor by
 * email in the one statement that reads a page. The identity feature owns every statement on its
 * tables (scripts/check-table-owners.mjs); this is the fragment it lends.
 */
export const UserSql = {
  /** Joins the user `u` that a column names, when there is one. */
  joinedOn: (userIdColumn: string) => `LEFT JOIN users u ON u.id = ${userIdColumn}`,
  email: 'u.email',
} as const;
