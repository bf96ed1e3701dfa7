import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { DeliveryEntity } from './delivery.entity';

/** One attempt of a delivery (docs/api.md 10.7's attempt log). Never the receiver's answer body. */
@Entity('delivery_attempts')
@Index('ix_delivery_attempts_delivery', ['deliveryId', 'id'])
export class DeliveryAttemptEntity {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'delivery_id', type: 'int' })
  deliveryId: number;

  @Column({ type: 'datetime', precision: 3 })
  at: Date;

  @Column({ name: 'duration_ms', type: 'int' })
  durationMs: number;

  @Column({ type: 'int', nullable: true })
  status: number | null;

  @Column({ type: 'varchar', length: 32, nullable: true })
  error: string | null;

  @ManyToOne(() => DeliveryEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'delivery_id', foreignKeyConstraintName: 'fk_delivery_attempts_delivery' })
  delivery?: DeliveryEntity;
}
