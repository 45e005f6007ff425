-- Senders with the most near-duplicate messages in the last 30 days
SELECT m.sender,
       COUNT(*)                 AS messages,
       COUNT(DISTINCT c.id)     AS clusters
FROM   message m
JOIN   cluster_member cm ON cm.message_id = m.id
JOIN   cluster c         ON c.id = cm.cluster_id
WHERE  m.received_at > now() - interval '30 days'
  AND  c.size > 1
GROUP  BY m.sender
ORDER  BY messages DESC
LIMIT  20;
